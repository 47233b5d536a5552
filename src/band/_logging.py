"""``configure_logging``: one readable line per event on stderr.

Default line: ``2026-09-30 09:30:21 [INFO] band.agent: Agent started: Echo (band-sdk 6.0.1)``.
The root logger stays at WARNING so an application's own INFO lines stay quiet; only the
``band`` logger is raised to ``level``. ``style="json"`` writes one JSON object per line
(stdlib only); ``log_file`` adds an owner-only file, rotated when ``max_bytes > 0``.
"""

from __future__ import annotations

import inspect
import json
import logging
import logging.config
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal, ParamSpec, TypeVar

from band.core.exceptions import BandConfigError

__all__ = [
    "CHATTY_LOGGERS",
    "STANDARD_FORMAT",
    "FileStyle",
    "FormatStyle",
    "JsonFormatter",
    "LogLevel",
    "LogStream",
    "LoggingConfig",
    "LoggingStyle",
    "build_logging_config",
    "chatty_logger_levels",
    "configure_logging",
]

STANDARD_FORMAT = "%(asctime)s [%(levelname)s] %(name)s: %(message)s"
CHATTY_LOGGERS = ("httpx", "httpcore", "websockets")
DEFAULT_JSON_FIELDS = ("timestamp", "level", "logger", "message")

LogLevel = int | str
LoggingConfig = dict[str, Any]
P = ParamSpec("P")
R = TypeVar("R")


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


def _level(value: LogLevel, what: str) -> int:
    if isinstance(value, bool):
        raise ValueError(f"invalid {what}: {value!r}")
    if isinstance(value, int):
        return value
    number = logging.getLevelNamesMapping().get(str(value).strip().upper())
    if number is None:
        raise ValueError(f"invalid {what}: {value!r}")
    return number


def chatty_logger_levels(level: LogLevel = "WARNING") -> dict[str, LogLevel]:
    """``{logger: level}`` quieting the HTTP and WebSocket libraries."""
    return dict.fromkeys(CHATTY_LOGGERS, _level(level, "level"))


def _formatter(
    style: LoggingStyle,
    fmt: str | None,
    fmt_style: FormatStyle,
    datefmt: str,
    json_fields: Sequence[str] | None,
    static_fields: Mapping[str, Any] | None,
) -> dict[str, Any]:
    if style is LoggingStyle.JSON:
        return {
            "()": JsonFormatter,
            "fields": tuple(json_fields or DEFAULT_JSON_FIELDS),
            "static": dict(static_fields or {}),
        }
    if style is LoggingStyle.RICH:
        raise BandConfigError("logging style rich is not available here; use standard or json")
    return {
        "format": fmt or STANDARD_FORMAT,
        "datefmt": datefmt,
        "style": FormatStyle(fmt_style).value,
    }


def _options_of(source: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Give the decorated function ``source``'s signature (one list of logging options)."""

    def decorate(function: Callable[..., R]) -> Callable[P, R]:
        function.__signature__ = inspect.signature(source).replace(  # type: ignore[attr-defined]
            return_annotation=inspect.signature(function).return_annotation
        )
        return function

    return decorate


def build_logging_config(
    level: LogLevel = logging.INFO,
    *,
    style: LoggingStyle | str = LoggingStyle.STANDARD,
    root_level: LogLevel = logging.WARNING,
    stream: LogStream | str = LogStream.STDERR,
    datefmt: str = "%Y-%m-%d %H:%M:%S",
    fmt: str | None = None,
    fmt_style: FormatStyle | str = FormatStyle.PERCENT,
    extra_loggers: Mapping[str, LogLevel] | None = None,
    json_fields: Sequence[str] | None = None,
    static_fields: Mapping[str, Any] | None = None,
    log_file: str | Path | None = None,
    max_bytes: int = 0,
    backup_count: int = 1,
    file_style: FileStyle | str | None = None,
    file_level: LogLevel | None = None,
) -> LoggingConfig:
    """The ``dictConfig`` that ``configure_logging`` applies (without applying it)."""
    _level(level, "level")
    console_style = LoggingStyle(style)
    args = (FormatStyle(fmt_style), datefmt, json_fields, static_fields)
    out = sys.stdout if LogStream(stream) is LogStream.STDOUT else sys.stderr
    formatters = {"console": _formatter(console_style, fmt, *args)}
    handlers: dict[str, Any] = {
        "console": {"class": "logging.StreamHandler", "formatter": "console", "stream": out}
    }
    if log_file is not None:
        if max_bytes > 0 and backup_count < 1:
            raise ValueError("backup_count must be >= 1 when max_bytes > 0")
        chosen = LoggingStyle(file_style) if file_style is not None else console_style
        if chosen is LoggingStyle.RICH:
            chosen = LoggingStyle.STANDARD
        formatters["file"] = _formatter(chosen, fmt, *args)
        handlers["file"] = {
            "class": "logging.handlers.RotatingFileHandler",
            "formatter": "file",
            "filename": str(log_file),
            "maxBytes": max_bytes,
            "backupCount": backup_count if max_bytes > 0 else 0,
        }
        if file_level is not None:
            handlers["file"]["level"] = _level(file_level, "file_level")
    loggers = {name: {"level": _level(lvl, "level")} for name, lvl in (extra_loggers or {}).items()}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": formatters,
        "handlers": handlers,
        "root": {"level": _level(root_level, "root_level"), "handlers": list(handlers)},
        "loggers": loggers,
    }


def _prepare_file(path: str | Path) -> None:
    """Missing folders 0700 and the file 0600: logs may hold room content."""
    file = Path(path)
    file.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(file, os.O_CREAT | os.O_APPEND | os.O_WRONLY, 0o600)
    os.close(fd)


@_options_of(build_logging_config)
def configure_logging(level: LogLevel = logging.INFO, **options: Any) -> LoggingConfig:
    """Send log lines to stderr (one per event) and set the ``band`` logger to ``level``."""
    band_level = _level(level, "level")
    config = build_logging_config(band_level, **options)
    if options.get("log_file") is not None:
        _prepare_file(options["log_file"])
    logging.config.dictConfig(config)
    # setLevel rather than a dictConfig entry keeps handlers already on "band" intact.
    logging.getLogger("band").setLevel(band_level)
    return config
