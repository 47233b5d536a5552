"""``configure_logging``: one readable line per event on stderr.

Default line: ``2026-09-30 09:30:21 [INFO] band.agent: Agent started: Echo (band-sdk 6.0.1)``.
The root logger stays at WARNING so an application's own INFO lines stay quiet; only the
``band`` logger is raised to ``level``.
"""

from __future__ import annotations

import logging
import logging.config
import sys
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from band.core.exceptions import BandConfigError

__all__ = [
    "CHATTY_LOGGERS",
    "STANDARD_FORMAT",
    "LogStream",
    "LoggingStyle",
    "build_logging_config",
    "chatty_logger_levels",
    "configure_logging",
]

STANDARD_FORMAT = "%(asctime)s [%(levelname)s] %(name)s: %(message)s"
CHATTY_LOGGERS = ("httpx", "httpcore", "websockets")


class LoggingStyle(StrEnum):
    STANDARD = "standard"
    RICH = "rich"
    JSON = "json"


class LogStream(StrEnum):
    STDERR = "stderr"
    STDOUT = "stdout"


def _level(value: int | str, what: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"invalid {what}: {value!r}")
    if isinstance(value, int):
        return value
    number = logging.getLevelNamesMapping().get(str(value).strip().upper())
    if number is None:
        raise ValueError(f"invalid {what}: {value!r}")
    return number


def chatty_logger_levels(level: int | str = "WARNING") -> dict[str, int]:
    """``{logger: level}`` quieting the HTTP and WebSocket libraries."""
    return dict.fromkeys(CHATTY_LOGGERS, _level(level, "level"))


def build_logging_config(
    level: int | str = logging.INFO,
    *,
    style: LoggingStyle | str = LoggingStyle.STANDARD,
    root_level: int | str = logging.WARNING,
    stream: LogStream | str = LogStream.STDERR,
    datefmt: str = "%Y-%m-%d %H:%M:%S",
    fmt: str | None = None,
    extra_loggers: Mapping[str, int | str] | None = None,
    log_file: str | Path | None = None,
) -> dict[str, Any]:
    """The ``dictConfig`` that ``configure_logging`` applies (without applying it)."""
    if LoggingStyle(style) is not LoggingStyle.STANDARD:
        raise BandConfigError(
            f"logging style {style!s} is not available here; pip install 'openband[logging]'"
        )
    out = sys.stdout if LogStream(stream) is LogStream.STDOUT else sys.stderr
    handlers: dict[str, Any] = {
        "console": {"class": "logging.StreamHandler", "formatter": "standard", "stream": out}
    }
    if log_file is not None:
        handlers["file"] = {
            "class": "logging.FileHandler",
            "formatter": "standard",
            "filename": str(log_file),
        }
    loggers = {name: {"level": _level(lvl, "level")} for name, lvl in (extra_loggers or {}).items()}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"standard": {"format": fmt or STANDARD_FORMAT, "datefmt": datefmt}},
        "handlers": handlers,
        "root": {"level": _level(root_level, "root_level"), "handlers": list(handlers)},
        "loggers": loggers,
    }


def configure_logging(
    level: int | str = logging.INFO,
    *,
    style: LoggingStyle | str = LoggingStyle.STANDARD,
    root_level: int | str = logging.WARNING,
    stream: LogStream | str = LogStream.STDERR,
    datefmt: str = "%Y-%m-%d %H:%M:%S",
    fmt: str | None = None,
    extra_loggers: Mapping[str, int | str] | None = None,
    log_file: str | Path | None = None,
) -> dict[str, Any]:
    """Send log lines to stderr (one per event) and set the ``band`` logger to ``level``."""
    band_level = _level(level, "level")
    config = build_logging_config(
        band_level,
        style=style,
        root_level=root_level,
        stream=stream,
        datefmt=datefmt,
        fmt=fmt,
        extra_loggers=extra_loggers,
        log_file=log_file,
    )
    logging.config.dictConfig(config)
    # setLevel rather than a dictConfig entry keeps handlers already on "band" intact.
    logging.getLogger("band").setLevel(band_level)
    return config
