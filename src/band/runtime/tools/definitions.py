"""Built-in tools as data: a name, its input model and the ``AgentTools`` method it runs.

Surfaces that serve Band's tools outside a model loop (the MCP server) list them from here,
filtered by capability in registry order.
"""

from __future__ import annotations

from collections.abc import Iterable

from band.core.types import Capability

from .dispatch import METHODS
from .models import TOOL_MODELS
from .schemas import enabled_tool_names
from .types import Surface, ToolDefinition

__all__ = ["Surface", "ToolDefinition", "iter_tool_definitions"]


def iter_tool_definitions(
    *,
    surface: Surface | None = Surface.AGENT,
    capabilities: Iterable[Capability] | None = None,
) -> list[ToolDefinition]:
    """The agent tools the capabilities switch on (``None``: chat and contacts)."""
    if surface not in (None, Surface.AGENT):
        return []
    return [
        ToolDefinition(name, TOOL_MODELS[name], METHODS[name])
        for name in enabled_tool_names(capabilities)
    ]
