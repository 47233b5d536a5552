"""Logging levels as options take them: checked, named, compared (``band.logging_config``'s)."""

from __future__ import annotations

import logging

__all__ = [
    "CHATTY_LOGGERS",
    "LogLevel",
    "chatty_logger_levels",
    "coerce_log_level",
    "coerce_log_level_name",
    "level_value",
    "more_verbose",
]

# Our socket runs on ``websockets``, so that, not a Phoenix client library, is the chatty one.
CHATTY_LOGGERS = ("httpx", "httpcore", "websockets")
LogLevel = int | str


def coerce_log_level(value: object, *, name: str = "level") -> LogLevel:
    """A level as given (a non-negative int, or a known name, upper-cased); else ValueError."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"{name} must be a non-negative logging level")
        return value
    if isinstance(value, str):
        if value.upper() in logging.getLevelNamesMapping():
            return value.upper()
        raise ValueError(f"{name} must be a valid logging level")
    raise ValueError(f"{name} must be an int or logging level name")


def coerce_log_level_name(value: object, *, name: str = "level") -> str:
    """Like ``coerce_log_level``, always as an upper-case level name."""
    level = coerce_log_level(value, name=name)
    if isinstance(level, str):
        return level
    level_name = logging.getLevelName(level)
    if not isinstance(level_name, str) or level_name.startswith("Level "):
        raise ValueError(f"{name} must be a valid logging level")
    return level_name


def level_value(level: LogLevel) -> int:
    """A level's numeric severity."""
    if isinstance(level, int):
        return level
    return logging.getLevelNamesMapping()[str(level).upper()]


def more_verbose(left: LogLevel, right: LogLevel) -> LogLevel:
    """The more verbose (lower) of two levels."""
    return left if level_value(left) <= level_value(right) else right


def chatty_logger_levels(level: LogLevel = "WARNING") -> dict[str, LogLevel]:
    """``{logger: level}`` quieting the HTTP and WebSocket libraries (for ``extra_loggers``)."""
    return dict.fromkeys(CHATTY_LOGGERS, level)
