"""Framework adapters shipped with the SDK, imported lazily (PEP 562).

``from band.adapters import ParlantAdapter`` loads only the Parlant adapter module, so
importing ``band.adapters`` never pulls in a framework a deployment does not use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .anthropic import AnthropicAdapter
    from .langgraph import LangGraphAdapter
    from .openai_chat import OpenAIChatAdapter
    from .parlant import ParlantAdapter, ParlantAdapterConfig
    from .pydantic_ai import PydanticAIAdapter

__all__ = [
    "AnthropicAdapter",
    "LangGraphAdapter",
    "OpenAIChatAdapter",
    "ParlantAdapter",
    "ParlantAdapterConfig",
    "PydanticAIAdapter",
]

_EXPORTS: dict[str, str] = {
    "AnthropicAdapter": "band.adapters.anthropic",
    "LangGraphAdapter": "band.adapters.langgraph",
    "OpenAIChatAdapter": "band.adapters.openai_chat",
    "ParlantAdapter": "band.adapters.parlant",
    "ParlantAdapterConfig": "band.adapters.parlant",
    "PydanticAIAdapter": "band.adapters.pydantic_ai",
}


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'band.adapters' has no attribute '{name}'")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
