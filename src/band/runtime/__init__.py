"""The agent runtime: ``Agent``, per-room workers, tools, prompts and custom tools.

Names resolve on first access (PEP 562) so importing a submodule such as
``band.runtime.tools`` never pulls in the socket client.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
