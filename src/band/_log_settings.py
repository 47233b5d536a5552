"""Earlier home of ``LogSettings``; it lives in ``band.config.logs``."""

from band.config.logs import LogSettings, configure_logging_from_env

__all__ = ["LogSettings", "configure_logging_from_env"]
