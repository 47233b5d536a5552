"""Logging for the room view process: stderr and a rotating file in the state directory.

stdout carries the MCP protocol and never a log line; lines are short ``key=value`` facts and
never carry message content, names or keys.
"""

from __future__ import annotations

from pydantic import Field

from band.config.logs import LogSettings
from band.integrations.desktop_app.event_relay import STATE_DIR
from band.logging_config import CHATTY_LOGGERS, LogStream

__all__ = ["LOG_FILE", "DesktopLogSettings", "configure"]

LOG_FILE = STATE_DIR / "band-room-view.log"
QUIET_LOGGERS = (*CHATTY_LOGGERS, "mcp.server.lowlevel.server")


class DesktopLogSettings(LogSettings):
    """The room view's defaults: a 1 MB file, one backup, stderr."""

    log_max_bytes: int = Field(1_000_000, ge=0)
    log_backups: int = Field(1, ge=1)


def configure() -> None:
    """Log to stderr and the rotating file, our loggers at the application level."""
    settings = DesktopLogSettings(log_file=LOG_FILE, log_stream=LogStream.STDERR)
    settings.for_application().configure(extra_loggers=dict.fromkeys(QUIET_LOGGERS, "WARNING"))
