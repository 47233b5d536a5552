"""Framework adapters shipped with the SDK, imported lazily (PEP 562).

``from band.adapters import ParlantAdapter`` loads only the Parlant adapter module, so
importing ``band.adapters`` never pulls in a framework a deployment does not use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

if TYPE_CHECKING:
    from .acp import ACPClientAdapter, ACPClientAdapterConfig
    from .anthropic import AnthropicAdapter, AnthropicAdapterConfig
    from .codex import CodexAdapter, CodexAdapterConfig
    from .langgraph import LangGraphAdapter, LangGraphAdapterConfig
    from .openai_chat import OpenAIChatAdapter
    from .parlant import ParlantAdapter, ParlantAdapterConfig
    from .pydantic_ai import PydanticAIAdapter, PydanticAIAdapterConfig

__all__ = [
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "AnthropicAdapter",
    "AnthropicAdapterConfig",
    "CodexAdapter",
    "CodexAdapterConfig",
    "LangGraphAdapter",
    "LangGraphAdapterConfig",
    "OpenAIChatAdapter",
    "ParlantAdapter",
    "ParlantAdapterConfig",
    "PydanticAIAdapter",
    "PydanticAIAdapterConfig",
]

_EXPORTS: dict[str, str] = {
    "ACPClientAdapter": "band.adapters.acp",
    "ACPClientAdapterConfig": "band.adapters.acp",
    "AnthropicAdapter": "band.adapters.anthropic",
    "AnthropicAdapterConfig": "band.adapters.anthropic",
    "CodexAdapter": "band.adapters.codex",
    "CodexAdapterConfig": "band.adapters.codex",
    "LangGraphAdapter": "band.adapters.langgraph",
    "LangGraphAdapterConfig": "band.adapters.langgraph",
    "OpenAIChatAdapter": "band.adapters.openai_chat",
    "ParlantAdapter": "band.adapters.parlant",
    "ParlantAdapterConfig": "band.adapters.parlant",
    "PydanticAIAdapter": "band.adapters.pydantic_ai",
    "PydanticAIAdapterConfig": "band.adapters.pydantic_ai",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
