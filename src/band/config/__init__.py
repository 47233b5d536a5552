"""Agent configuration: credentials from ``agent_config.yaml``, URLs and logging from the env.

``agent_id, api_key = load_agent_config("my_agent")``; ``LogSettings().configure()``.
"""

from band.config.loader import get_config_path, load_agent_config
from band.config.logs import LogSettings, configure_logging_from_env
from band.config.settings import DEFAULT_REST_URL, DEFAULT_WS_URL, PlatformSettings

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "LogSettings",
    "PlatformSettings",
    "configure_logging_from_env",
    "get_config_path",
    "load_agent_config",
]
