"""``LogSettings``: the ``BAND_LOG_*`` variables as validated logging settings.

``LogSettings().configure()`` (a library: only ``band`` at ``BAND_LOG_LEVEL``, the root at
WARNING); ``LogSettings().for_application().configure()`` (a process that owns its logs: its
own loggers at the same level too). ``BAND_LOG_OVERRIDES`` is JSON (``{"httpx": "WARNING"}``)
and wins over the ``extra_loggers`` a caller passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from band._signatures import method_parameters_of, parameters_of
from band.logging_config import (
    FileStyle,
    FormatStyle,
    LoggingConfig,
    LoggingStyle,
    LogLevel,
    LogStream,
    apply_logging_config,
    build_logging_config,
    coerce_log_level_name,
)

__all__ = ["LogSettings", "configure_logging_from_env"]


def _format_options(
    *,
    extra_loggers: Mapping[str, LogLevel] | None = None,
    json_fields: Sequence[str] | None = None,
    static_fields: Mapping[str, Any] | None = None,
    fmt: str | None = None,
    fmt_style: FormatStyle = FormatStyle.PERCENT,
    datefmt: str = "%Y-%m-%d %H:%M:%S",
) -> dict[str, Any]:
    """The options ``LogSettings.build_config``, ``configure`` and ``configure_logging_from_env``
    take beside the settings (declared once here), as a dict with the defaults filled in."""
    return dict(locals())


class LogSettings(BaseSettings):
    """Process-wide logging knobs; each field not passed comes from ``BAND_<FIELD>``."""

    model_config = SettingsConfigDict(
        env_prefix="BAND_", extra="ignore", case_sensitive=False, env_ignore_empty=True
    )

    log_level: str = Field("INFO", description="Level of the band logger.")
    log_root_level: str = Field("WARNING", description="Root level for other loggers.")
    log_file: Path | None = Field(None, description="A log file; None writes none.")
    log_file_level: str | None = Field(None, description="The file's level (log_level).")
    log_max_bytes: int = Field(0, ge=0, description="Rotate past this size; 0 never.")
    log_backups: int = Field(1, ge=0, description="Rotated files to keep.")
    log_console_style: LoggingStyle = Field(LoggingStyle.STANDARD, description="Console style.")
    log_file_style: FileStyle = Field(LoggingStyle.STANDARD, description="File style.")
    log_stream: LogStream = Field(LogStream.STDERR, description="Console stream.")
    log_overrides: dict[str, str] = Field(
        default_factory=dict, description='Per-logger levels, JSON: {"httpx": "WARNING"}.'
    )

    @field_validator("log_console_style", "log_file_style", "log_stream", mode="before")
    @classmethod
    def _lowercase(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("log_level", "log_root_level", "log_file_level", mode="before")
    @classmethod
    def _level_name(cls, value: object) -> str | None:
        return None if value is None else coerce_log_level_name(value, name="log level")

    @field_validator("log_overrides")
    @classmethod
    def _override_levels(cls, value: dict[str, str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, level in value.items():
            if not name:
                raise ValueError("log_overrides keys must be non-empty logger names")
            out[name] = coerce_log_level_name(level, name=f"log_overrides[{name!r}]")
        return out

    @classmethod
    def create(cls, **fields: Any) -> Self:
        """Settings from optional fields: a ``None`` leaves the environment's value in place."""
        return cls(**{name: value for name, value in fields.items() if value is not None})

    def for_application(self) -> Self:
        """The process's own loggers at ``log_level`` too (unless a root level was given)."""
        if "log_root_level" in self.model_fields_set:
            return self
        return self.model_copy(update={"log_root_level": self.log_level})

    def _options(self, extra_loggers: Mapping[str, LogLevel] | None) -> dict[str, Any]:
        loggers = {**(extra_loggers or {}), **self.log_overrides}
        return {
            "style": self.log_console_style,
            "root_level": self.log_root_level,
            "stream": self.log_stream,
            "extra_loggers": loggers or None,
            "log_file": self.log_file,
            "max_bytes": self.log_max_bytes,
            "backup_count": self.log_backups,
            "file_style": self.log_file_style if self.log_file is not None else None,
            "file_level": self.log_file_level,
        }

    @method_parameters_of(_format_options)
    def build_config(self, **options: Any) -> LoggingConfig:
        """The ``dictConfig`` these settings describe (not applied)."""
        chosen = _format_options(**options)
        extra_loggers = chosen.pop("extra_loggers")
        return build_logging_config(self.log_level, **chosen, **self._options(extra_loggers))

    @method_parameters_of(_format_options)
    def configure(self, **options: Any) -> LoggingConfig:
        """Apply these settings (``build_config``'s options) and return the config."""
        return apply_logging_config(self.build_config(**options))


@parameters_of(_format_options)
def configure_logging_from_env(**options: Any) -> LoggingConfig:
    """``LogSettings().configure(...)``: logging as the ``BAND_LOG_*`` variables say."""
    return LogSettings().configure(**options)
