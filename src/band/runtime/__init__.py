"""The agent runtime: ``Agent``, per-room workers, tools, prompts and custom tools.

Names resolve on first access (PEP 562) so importing a submodule such as
``band.runtime.tools`` never pulls in the socket client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

__all__ = [
    "Agent",
    "AgentConfig",
    "AgentRuntime",
    "ConversationContext",
    "Execution",
    "ExecutionContext",
    "ExecutionHandler",
    "GracefulShutdown",
    "MessageRetryTracker",
    "OneShotEnvelopeError",
    "OneShotInvoker",
    "OneShotStatus",
    "PlatformMessage",
    "PlatformRuntime",
    "RoomPresence",
    "SessionConfig",
    "format_history_for_llm",
    "format_message_for_llm",
    "load_agent_config",
    "run_with_graceful_shutdown",
]

_LAZY = {
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
    from .config import AgentConfig, SessionConfig, load_agent_config
    from .context import ConversationContext
    from .formatters import format_history_for_llm, format_message_for_llm
    from .messages import PlatformMessage
    from .oneshot import OneShotEnvelopeError, OneShotInvoker, OneShotStatus
    from .platform_runtime import PlatformRuntime
    from .presence import RoomPresence
    from .retry_tracker import MessageRetryTracker
    from .room_execution import Execution, ExecutionContext, ExecutionHandler
    from .runtime import AgentRuntime
    from .shutdown import GracefulShutdown, run_with_graceful_shutdown

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
