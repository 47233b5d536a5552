"""``configure_logging``: one readable line per event, on stderr by default.

Default line: ``2026-09-30 09:30:21 [INFO] band.agent: Agent started: Echo``. The root logger
stays at WARNING so an application's own INFO lines stay quiet; only the ``band`` logger is
raised to ``level`` (``extra_loggers`` sets others). ``style="json"`` writes one JSON object
per line (stdlib only); ``log_file`` adds a file created owner-only (0600, folders 0700, also
every rotated generation), rotated when ``max_bytes > 0``. Every record carries the turn's
``trace_context`` (the W3C traceparent when OpenTelemetry is active, else a fresh id per turn).
Options are validated by ``LoggingRequest``; a bad one is a ``ValueError`` naming it.
"""

from __future__ import annotations

import json
import logging
import logging.config
import logging.handlers
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal, TextIO

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from band._log_files import (
    LOG_DIR_MODE,
    LOG_FILE_MODE,
    OwnerOnlyCreate,
    OwnerOnlyFileHandler,
    OwnerOnlyRotatingFileHandler,
    create_log_directory,
)
from band._log_levels import (
    CHATTY_LOGGERS,
    LogLevel,
    chatty_logger_levels,
    coerce_log_level,
    coerce_log_level_name,
    level_value,
    more_verbose,
)
from band._log_trace import (
    TRACE_CONTEXT,
    _TraceContextFilter,
    core_issues,
    current_traceparent,
    trace_context_extra,
    trace_context_scope,
)
from band._signatures import parameters_of

__all__ = [
    "CHATTY_LOGGERS",
    "LOG_DIR_MODE",
    "LOG_FILE_MODE",
    "STANDARD_FORMAT",
    "TRACE_CONTEXT",
    "FileStyle",
    "FormatStyle",
    "JsonFormatter",
    "LogLevel",
    "LogStream",
    "LoggingConfig",
    "LoggingRequest",
    "LoggingStyle",
    "OwnerOnlyCreate",
    "OwnerOnlyFileHandler",
    "OwnerOnlyRotatingFileHandler",
    "apply_logging_config",
    "build_logging_config",
    "chatty_logger_levels",
    "coerce_log_level",
    "coerce_log_level_name",
    "configure_logging",
    "core_issues",
    "create_log_directory",
    "current_traceparent",
    "level_value",
    "more_verbose",
    "trace_context_extra",
    "trace_context_scope",
]

STANDARD_FORMAT = "%(asctime)s [%(levelname)s] %(name)s: %(message)s"
DEFAULT_JSON_FIELDS = ("timestamp", "level", "logger", "message", "trace_context")

LoggingConfig = dict[str, Any]


class LoggingStyle(StrEnum):
    STANDARD = "standard"
    RICH = "rich"
    JSON = "json"


FileStyle = Literal[LoggingStyle.STANDARD, LoggingStyle.JSON]


class LogStream(StrEnum):
    STDERR = "stderr"
    STDOUT = "stdout"


class FormatStyle(StrEnum):
    """``logging.Formatter`` placeholder styles."""

    PERCENT = "%"
    BRACE = "{"
    DOLLAR = "$"


# -- the request and the config ---------------------------------------------------------


def _lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def _level_field(value: object, info: Any) -> LogLevel:
    return coerce_log_level(value, name=info.field_name or "level")


def _optional_level(value: object, info: Any) -> LogLevel | None:
    return None if value is None else coerce_log_level(value, name=info.field_name or "level")


def _loggers(value: object) -> dict[str, LogLevel] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ValueError("extra_loggers must be a mapping of logger name to level")
    out: dict[str, LogLevel] = {}
    for name, level in value.items():
        if not isinstance(name, str) or not name:
            raise ValueError("extra_loggers keys must be non-empty logger names")
        out[name] = coerce_log_level(level, name=f"extra_loggers[{name!r}]")
    return out


def _fields(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, str | bytes) or not isinstance(value, Sequence) or not value:
        raise ValueError("json_fields must be a non-empty list of field names")
    if not all(isinstance(f, str) and f for f in value):
        raise ValueError("json_fields must contain non-empty strings")
    return tuple(value)


def _count(value: object, info: Any) -> object:
    if isinstance(value, bool):
        raise ValueError(f"{info.field_name} must be a non-negative int")
    return value


class LoggingRequest(BaseModel):
    """The validated options of ``build_logging_config`` and ``configure_logging``."""

    model_config = ConfigDict(extra="forbid")

    level: Annotated[LogLevel, BeforeValidator(_level_field)] = logging.INFO
    style: Annotated[LoggingStyle, BeforeValidator(_lower)] = LoggingStyle.STANDARD
    root_level: Annotated[LogLevel, BeforeValidator(_level_field)] = logging.WARNING
    stream: Annotated[LogStream, BeforeValidator(_lower)] = LogStream.STDERR
    datefmt: str = "%Y-%m-%d %H:%M:%S"
    fmt: str | None = None
    fmt_style: FormatStyle = FormatStyle.PERCENT
    extra_loggers: Annotated[dict[str, LogLevel] | None, BeforeValidator(_loggers)] = None
    json_fields: Annotated[tuple[str, ...] | None, BeforeValidator(_fields)] = None
    static_fields: dict[str, Any] | None = None
    log_file: Path | None = None
    max_bytes: Annotated[int, BeforeValidator(_count)] = Field(default=0, ge=0)
    backup_count: Annotated[int, BeforeValidator(_count)] = Field(default=1, ge=0)
    file_style: Annotated[FileStyle | None, BeforeValidator(_lower)] = None
    file_level: Annotated[LogLevel | None, BeforeValidator(_optional_level)] = None

    @model_validator(mode="after")
    def _rotation_needs_a_backup(self) -> LoggingRequest:
        if self.max_bytes > 0 and self.backup_count == 0:
            raise ValueError(
                "backup_count must be at least 1 when max_bytes is set; "
                "a rotating handler with no backups never rotates"
            )
        return self

    @property
    def resolved_file_style(self) -> FileStyle | None:
        if self.log_file is None:
            return None
        return self.file_style or LoggingStyle.STANDARD

    @property
    def resolved_file_level(self) -> LogLevel | None:
        if self.log_file is None:
            return None
        return self.file_level if self.file_level is not None else self.level

    @property
    def effective_band_level(self) -> LogLevel:
        """The ``band`` logger's level: the console's, or the file's when more verbose."""
        file_level = self.resolved_file_level
        return self.level if file_level is None else more_verbose(self.level, file_level)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: the chosen fields plus fixed ``static_fields``."""

    def __init__(
        self, fields: Sequence[str] = DEFAULT_JSON_FIELDS, static: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__()
        self.fields = tuple(fields)
        self.static = dict(static or {})

    def format(self, record: logging.LogRecord) -> str:
        known = {
            "timestamp": datetime.fromtimestamp(record.created, UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        out: dict[str, Any] = {**self.static}
        for name in self.fields:
            out[name] = known.get(name, getattr(record, name, None))
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def rich_handler(stream: TextIO) -> logging.Handler:
    """A console handler by ``rich`` (coloured levels, aligned columns) writing to ``stream``;
    needs the ``logging`` extra."""
    try:
        from rich.console import Console
        from rich.logging import RichHandler
    except ImportError:
        raise ImportError(
            "logging style rich needs rich: pip install 'openband[logging]'"
        ) from None
    return RichHandler(console=Console(file=stream), show_path=False)


def _formatter(style: LoggingStyle, request: LoggingRequest) -> dict[str, Any]:
    if style is LoggingStyle.JSON:
        return {
            "()": JsonFormatter,
            "fields": request.json_fields or DEFAULT_JSON_FIELDS,
            "static": dict(request.static_fields or {}),
        }
    if style is LoggingStyle.RICH:  # the rich handler shows the time and level itself
        return {"format": "%(message)s", "datefmt": request.datefmt}
    return {
        "format": request.fmt or STANDARD_FORMAT,
        "datefmt": request.datefmt,
        "style": request.fmt_style.value,
    }


def _build(request: LoggingRequest) -> LoggingConfig:
    out = sys.stdout if request.stream is LogStream.STDOUT else sys.stderr
    formatters = {"console": _formatter(request.style, request)}
    console: dict[str, Any] = {"class": "logging.StreamHandler"}
    if request.style is LoggingStyle.RICH:
        console = {"()": rich_handler}
    handlers: dict[str, Any] = {"console": {**console, "formatter": "console", "stream": out}}
    file_style, file_level = request.resolved_file_style, request.resolved_file_level
    if request.log_file is not None and file_style is not None and file_level is not None:
        formatters["file"] = _formatter(LoggingStyle(file_style), request)
        rotating = request.max_bytes > 0
        handlers["file"] = {
            "()": OwnerOnlyRotatingFileHandler if rotating else OwnerOnlyFileHandler,
            "formatter": "file",
            "filename": str(request.log_file),
        }
        if rotating:
            handlers["file"].update(maxBytes=request.max_bytes, backupCount=request.backup_count)
        if level_value(file_level) != level_value(request.level):
            handlers["console"]["level"] = request.level
            handlers["file"]["level"] = file_level
    for handler in handlers.values():
        handler["filters"] = ["trace_context"]
    loggers = {"band": {"level": request.effective_band_level}}
    loggers.update({n: {"level": lvl} for n, lvl in (request.extra_loggers or {}).items()})
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"trace_context": {"()": _TraceContextFilter}},
        "formatters": formatters,
        "handlers": handlers,
        "root": {"level": request.root_level, "handlers": list(handlers)},
        "loggers": loggers,
    }


def _request(level: LogLevel, options: dict[str, Any]) -> LoggingRequest:
    try:
        return LoggingRequest(level=level, **options)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error.get("loc", ()))
        message = str(error.get("msg", "")).removeprefix("Value error, ")
        text = message if where in message or not where else f"{where}: {message}"
        raise ValueError(text) from None


def build_logging_config(
    level: LogLevel = logging.INFO,
    *,
    style: LoggingStyle = LoggingStyle.STANDARD,
    root_level: LogLevel = logging.WARNING,
    stream: LogStream = LogStream.STDERR,
    datefmt: str = "%Y-%m-%d %H:%M:%S",
    fmt: str | None = None,
    fmt_style: FormatStyle = FormatStyle.PERCENT,
    extra_loggers: Mapping[str, LogLevel] | None = None,
    json_fields: Sequence[str] | None = None,
    static_fields: Mapping[str, Any] | None = None,
    log_file: Path | str | None = None,
    max_bytes: int = 0,
    backup_count: int = 1,
    file_style: FileStyle | None = None,
    file_level: LogLevel | None = None,
) -> LoggingConfig:
    """The ``dictConfig`` dictionary that ``configure_logging`` applies (not applied)."""
    options = dict(locals())
    del options["level"]
    return _build(_request(level, options))


@parameters_of(build_logging_config)
def configure_logging(*args: Any, **kwargs: Any) -> LoggingConfig:
    """Apply the logging configuration (``build_logging_config``'s options) and return it.

    Named loggers get their level with ``setLevel`` rather than through ``dictConfig``, so
    handlers an application attached to ``band`` (or to an ``extra_loggers`` name) survive.
    """
    return apply_logging_config(build_logging_config(*args, **kwargs))


def apply_logging_config(config: LoggingConfig) -> LoggingConfig:
    """Apply a config ``build_logging_config`` built (its log file's folders made 0700)."""
    log_file = config["handlers"].get("file", {}).get("filename")
    if log_file is not None:
        create_log_directory(Path(log_file))
    logging.config.dictConfig({**config, "loggers": {}})
    for name, entry in config["loggers"].items():
        logging.getLogger(name).setLevel(entry["level"])
    return config
