"""band: the SDK for building agents on Band (open implementation).

Core vocabulary is imported eagerly; the runtime, logging and tool modules resolve on
first attribute access (PEP 562), so ``import band`` stays light and never needs an extra.
"""

# The lazy names are typed by star imports of their modules under TYPE_CHECKING (one list of
# them, _LAZY); test_public_surface checks that each name in __all__ resolves.
# ruff: noqa: F405

from __future__ import annotations

import logging
from importlib import metadata
from typing import TYPE_CHECKING

from band._lazy import lazy_exports
from band.core.exceptions import (
    AgentAlreadyRunningError,
    BandConfigError,
    BandConnectionError,
    BandError,
    BandToolError,
    RoomExecutionStoppedError,
)
from band.core.types import AdapterFeatures, Capability, ConflictPolicy, Emit, FeatureKwargs

try:
    __version__ = metadata.version("openband")
except metadata.PackageNotFoundError:  # running from a source tree
    __version__ = "0.1.0"

# band.runtime resolves these through its own map (it knows their modules).
_FROM_RUNTIME = (
    "Agent",
    "AgentConfig",
    "SessionConfig",
    "AgentRuntime",
    "RoomPresence",
    "Execution",
    "ExecutionContext",
    "ExecutionHandler",
    "ConversationContext",
    "PlatformMessage",
    "MessageRetryTracker",
    "GracefulShutdown",
    "run_with_graceful_shutdown",
    "AgentTools",
    "ALL_TOOL_NAMES",
    "BASE_TOOL_NAMES",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "MEMORY_TOOL_NAMES",
    "TOOL_MODELS",
    "MCP_TOOL_PREFIX",
    "mcp_tool_names",
    "render_system_prompt",
    "build_participants_message",
    "format_message_for_llm",
    "format_history_for_llm",
)
_LAZY: dict[str, str] = {
    **dict.fromkeys(_FROM_RUNTIME, "band.runtime"),
    "BandLink": "band.platform.link",
    "PlatformEvent": "band.platform.event",
    "configure_logging": "band.logging_config",
    "build_logging_config": "band.logging_config",
    "chatty_logger_levels": "band.logging_config",
    "CHATTY_LOGGERS": "band.logging_config",
    "STANDARD_FORMAT": "band.logging_config",
    "LoggingStyle": "band.logging_config",
    "FileStyle": "band.logging_config",
    "FormatStyle": "band.logging_config",
    "LogStream": "band.logging_config",
    "LogLevel": "band.logging_config",
    "LoggingConfig": "band.logging_config",
    "LogSettings": "band.config.logs",
    "configure_logging_from_env": "band.config.logs",
    "create_room_workspace_resolver": "band.workspaces",
}

__all__ = [
    "ALL_TOOL_NAMES",
    "BASE_TOOL_NAMES",
    "CHATTY_LOGGERS",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "STANDARD_FORMAT",
    "TOOL_MODELS",
    "AdapterFeatures",
    "Agent",
    "AgentAlreadyRunningError",
    "AgentConfig",
    "AgentRuntime",
    "AgentTools",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandLink",
    "BandToolError",
    "Capability",
    "ConflictPolicy",
    "ConversationContext",
    "Emit",
    "Execution",
    "ExecutionContext",
    "ExecutionHandler",
    "FeatureKwargs",
    "FileStyle",
    "FormatStyle",
    "GracefulShutdown",
    "LogLevel",
    "LogSettings",
    "LogStream",
    "LoggingConfig",
    "LoggingStyle",
    "MessageRetryTracker",
    "PlatformEvent",
    "PlatformMessage",
    "RoomExecutionStoppedError",
    "RoomPresence",
    "SessionConfig",
    "__version__",
    "build_logging_config",
    "build_participants_message",
    "chatty_logger_levels",
    "configure_logging",
    "configure_logging_from_env",
    "create_room_workspace_resolver",
    "format_history_for_llm",
    "format_message_for_llm",
    "mcp_tool_names",
    "render_system_prompt",
    "run_with_graceful_shutdown",
]

if TYPE_CHECKING:
    from band.config.logs import (
        LogSettings,
        configure_logging_from_env,
    )
    from band.logging_config import *  # noqa: F403
    from band.platform.event import (
        PlatformEvent,
    )
    from band.platform.link import (
        BandLink,
    )
    from band.runtime import *  # noqa: F403
    from band.workspaces import (
        create_room_workspace_resolver,
    )

_band_logger = logging.getLogger("band")
if not any(isinstance(h, logging.NullHandler) for h in _band_logger.handlers):
    _band_logger.addHandler(logging.NullHandler())

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
