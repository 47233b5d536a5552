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
    "PlatformRuntime",
    "SessionConfig",
    "load_agent_config",
]

_LAZY = {
    "Agent": "band.runtime.agent",
    "AgentConfig": "band.runtime.config",
    "SessionConfig": "band.runtime.config",
    "load_agent_config": "band.runtime.config",
    "PlatformRuntime": "band.runtime.platform_runtime",
}

if TYPE_CHECKING:
    from .agent import Agent
    from .config import AgentConfig, SessionConfig, load_agent_config
    from .platform_runtime import PlatformRuntime

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())
