"""``LogSettings`` / ``configure_logging_from_env``: logging configured by ``BAND_LOG_*``."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ._logging import (
    FormatStyle,
    LoggingConfig,
    LoggingStyle,
    LogLevel,
    LogStream,
    configure_logging,
)

__all__ = ["LogSettings", "configure_logging_from_env"]

_ENV = {
    "log_level": "BAND_LOG_LEVEL",
    "log_root_level": "BAND_LOG_ROOT_LEVEL",
    "log_file": "BAND_LOG_FILE",
    "log_file_level": "BAND_LOG_FILE_LEVEL",
    "log_max_bytes": "BAND_LOG_MAX_BYTES",
    "log_backups": "BAND_LOG_BACKUPS",
    "log_console_style": "BAND_LOG_CONSOLE_STYLE",
    "log_file_style": "BAND_LOG_FILE_STYLE",
    "log_stream": "BAND_LOG_STREAM",
    "log_overrides": "BAND_LOG_OVERRIDES",
}


class LogSettings(BaseModel):
    """Logging settings; each field not passed comes from its ``BAND_LOG_*`` variable."""

    model_config = ConfigDict(extra="ignore")

    log_level: str = "INFO"
    log_root_level: str = "WARNING"
    log_file: Path | None = None
    log_file_level: str | None = None
    log_max_bytes: int = Field(default=0, ge=0)
    log_backups: int = Field(default=1, ge=0)
    log_console_style: LoggingStyle = LoggingStyle.STANDARD
    log_file_style: LoggingStyle = LoggingStyle.STANDARD
    log_stream: LogStream = LogStream.STDERR
    log_overrides: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        values = dict(data) if isinstance(data, dict) else {}
        for name, var in _ENV.items():
            raw = os.environ.get(var)
            if name not in values and raw:
                values[name] = json.loads(raw) if name == "log_overrides" else raw
        return values

    def build_config(self, **options: Any) -> LoggingConfig:
        """The ``dictConfig`` these settings describe (not applied)."""
        from ._logging import build_logging_config

        return build_logging_config(self.log_level, **self._kwargs(options))

    def configure(
        self,
        *,
        extra_loggers: Mapping[str, LogLevel] | None = None,
        json_fields: Sequence[str] | None = None,
        static_fields: Mapping[str, Any] | None = None,
        fmt: str | None = None,
        fmt_style: FormatStyle = FormatStyle.PERCENT,
        datefmt: str = "%Y-%m-%d %H:%M:%S",
    ) -> LoggingConfig:
        """Apply these settings (``configure_logging``) and return the config."""
        options = {
            "extra_loggers": extra_loggers,
            "json_fields": json_fields,
            "static_fields": static_fields,
            "fmt": fmt,
            "fmt_style": fmt_style,
            "datefmt": datefmt,
        }
        return configure_logging(self.log_level, **self._kwargs(options))

    def _kwargs(self, options: Mapping[str, Any]) -> dict[str, Any]:
        loggers = {**self.log_overrides, **(options.get("extra_loggers") or {})}
        return {
            **{k: v for k, v in options.items() if k != "extra_loggers"},
            "extra_loggers": loggers or None,
            "style": self.log_console_style,
            "root_level": self.log_root_level,
            "stream": self.log_stream,
            "log_file": self.log_file,
            "max_bytes": self.log_max_bytes,
            "backup_count": max(1, self.log_backups),
            "file_style": self.log_file_style,
            "file_level": self.log_file_level,
        }


def configure_logging_from_env(
    *,
    extra_loggers: Mapping[str, LogLevel] | None = None,
    json_fields: Sequence[str] | None = None,
    static_fields: Mapping[str, Any] | None = None,
    fmt: str | None = None,
    fmt_style: FormatStyle = FormatStyle.PERCENT,
    datefmt: str = "%Y-%m-%d %H:%M:%S",
) -> LoggingConfig:
    """``LogSettings().configure(...)``: logging as the ``BAND_LOG_*`` variables say."""
    return LogSettings().configure(
        extra_loggers=extra_loggers,
        json_fields=json_fields,
        static_fields=static_fields,
        fmt=fmt,
        fmt_style=fmt_style,
        datefmt=datefmt,
    )
