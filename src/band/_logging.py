"""Earlier home of the logging helpers; they live in ``band.logging_config``."""

from band.logging_config import (
    CHATTY_LOGGERS,
    STANDARD_FORMAT,
    FileStyle,
    FormatStyle,
    JsonFormatter,
    LoggingConfig,
    LoggingStyle,
    LogLevel,
    LogStream,
    build_logging_config,
    chatty_logger_levels,
    configure_logging,
)

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
