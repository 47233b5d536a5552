"""Tool schemas in the OpenAI and Anthropic formats, filtered by capability."""

from __future__ import annotations

from collections.abc import Iterable

from band.core.types import Capability
from band.runtime._schema import (
    anthropic_schema,
    model_description,
    model_parameters,
    openai_schema,
    validate_schema_format,
)

from .names import CATEGORY_OF_CAPABILITY, TOOL_CATEGORIES, ToolCategory
from .registry import TOOL_MODELS

__all__ = [
    "anthropic_schema",
    "enabled_tool_names",
    "model_description",
    "model_parameters",
    "openai_schema",
    "validate_schema_format",
]


def enabled_tool_names(
    capabilities: Iterable[Capability] | None, *, hub_room: bool = False
) -> list[str]:
    """Tool names in registry order for the given capabilities.

    ``None`` keeps the legacy default (contacts only); the hub room always adds contacts.
    """
    caps = {Capability.CONTACTS} if capabilities is None else {Capability(c) for c in capabilities}
    if hub_room:
        caps.add(Capability.CONTACTS)
    categories = {ToolCategory.CHAT} | {CATEGORY_OF_CAPABILITY[c] for c in caps}
    return [name for name in TOOL_MODELS if TOOL_CATEGORIES[name] in categories]
