"""The agent runtime: ``Agent``, per-room workers, tools, prompts and custom tools.

Names resolve on first access (PEP 562) so importing a submodule such as
``band.runtime.tools`` never pulls in the socket client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

__all__ = [
    "ALL_TOOL_NAMES",
    "BASE_INSTRUCTIONS",
    "BASE_TOOL_NAMES",
    "CHAT_TOOL_NAMES",
    "CONTACT_TOOL_NAMES",
    "MCP_TOOL_PREFIX",
    "MEMORY_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "TEMPLATES",
    "TOOL_MODELS",
    "Agent",
    "AgentConfig",
    "AgentRuntime",
    "AgentTools",
    "ConversationContext",
    "Execution",
    "ExecutionContext",
    "ExecutionHandler",
    "GracefulShutdown",
    "HumanTools",
    "MessageHandler",
    "MessageRetryTracker",
    "OneShotEnvelopeError",
    "OneShotInvoker",
    "OneShotStatus",
    "PlatformMessage",
    "PlatformRuntime",
    "RoomPresence",
    "SessionConfig",
    "build_participants_message",
    "format_history_for_llm",
    "format_message_for_llm",
    "load_agent_config",
    "mcp_tool_names",
    "render_system_prompt",
    "run_with_graceful_shutdown",
]

_LAZY = {
    "ALL_TOOL_NAMES": "band.runtime.tools",
    "AgentTools": "band.runtime.tools",
    "BASE_TOOL_NAMES": "band.runtime.tools",
    "CHAT_TOOL_NAMES": "band.runtime.tools",
    "CONTACT_TOOL_NAMES": "band.runtime.tools",
    "HumanTools": "band.runtime.tools",
    "MCP_TOOL_PREFIX": "band.runtime.tools",
    "MEMORY_TOOL_NAMES": "band.runtime.tools",
    "READ_ONLY_TOOL_NAMES": "band.runtime.tools",
    "TOOL_MODELS": "band.runtime.tools",
    "mcp_tool_names": "band.runtime.tools",
    "BASE_INSTRUCTIONS": "band.runtime.prompts",
    "TEMPLATES": "band.runtime.prompts",
    "render_system_prompt": "band.runtime.prompts",
    "build_participants_message": "band.runtime.formatters",
    "MessageHandler": "band.runtime.callbacks",
    "Agent": "band.runtime.agent",
    "AgentConfig": "band.runtime.config",
    "SessionConfig": "band.runtime.config",
    "load_agent_config": "band.runtime.config",
    "PlatformRuntime": "band.runtime.platform_runtime",
    "AgentRuntime": "band.runtime.runtime",
    "RoomPresence": "band.runtime.presence",
    "ConversationContext": "band.runtime.context",
    "Execution": "band.runtime.room_execution",
    "ExecutionContext": "band.runtime.room_execution",
    "ExecutionHandler": "band.runtime.room_execution",
    "GracefulShutdown": "band.runtime.shutdown",
    "run_with_graceful_shutdown": "band.runtime.shutdown",
    "MessageRetryTracker": "band.runtime.retry_tracker",
    "PlatformMessage": "band.runtime.messages",
    "format_history_for_llm": "band.runtime.formatters",
    "format_message_for_llm": "band.runtime.formatters",
    "OneShotInvoker": "band.runtime.oneshot",
    "OneShotStatus": "band.runtime.oneshot",
    "OneShotEnvelopeError": "band.runtime.oneshot",
}

if TYPE_CHECKING:
    from .agent import Agent
    from .callbacks import MessageHandler
    from .config import AgentConfig, SessionConfig, load_agent_config
    from .context import ConversationContext
    from .formatters import (
        build_participants_message,
        format_history_for_llm,
        format_message_for_llm,
    )
    from .messages import PlatformMessage
    from .oneshot import OneShotEnvelopeError, OneShotInvoker, OneShotStatus
    from .platform_runtime import PlatformRuntime
    from .presence import RoomPresence
    from .prompts import BASE_INSTRUCTIONS, TEMPLATES, render_system_prompt
    from .retry_tracker import MessageRetryTracker
    from .room_execution import Execution, ExecutionContext, ExecutionHandler
    from .runtime import AgentRuntime
    from .shutdown import GracefulShutdown, run_with_graceful_shutdown
    from .tools import (
        ALL_TOOL_NAMES,
        BASE_TOOL_NAMES,
        CHAT_TOOL_NAMES,
        CONTACT_TOOL_NAMES,
        MCP_TOOL_PREFIX,
        MEMORY_TOOL_NAMES,
        READ_ONLY_TOOL_NAMES,
        TOOL_MODELS,
        AgentTools,
        HumanTools,
        mcp_tool_names,
    )

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
