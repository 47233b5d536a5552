"""What ``GeminiAdapter`` and ``GoogleADKAdapter`` both need: Band tool schemas as Gemini
accepts them, and Gemini's usage counts as a :class:`TurnUsage`.

Gemini's schema subset rejects ``additionalProperties``, numeric bounds and ``const``; the
bounds stay enforced where Band validates the arguments, and ``const: x`` says the same as
``enum: [x]``. Keys are only dropped where they are keywords, never where they are property
names (under ``properties`` or ``$defs``).
"""

from __future__ import annotations

from typing import Any

from band.core.tool_filter import sanitize_tool_schema
from band.core.types import TurnUsage

__all__ = ["gemini_schema", "gemini_usage", "openai_functions"]


def gemini_schema(node: Any) -> Any:
    """A copy of the JSON schema ``node`` without the keywords Gemini refuses."""
    return sanitize_tool_schema(node, drop_numeric_bounds=True, drop_additional_properties=True)


def openai_functions(schemas: list[dict[str, Any]]) -> list[tuple[str, str, dict[str, Any]]]:
    """``(name, description, parameters)`` of each OpenAI-format schema, parameters cleaned."""
    functions = []
    for schema in schemas:
        function = schema.get("function") or {}
        name = function.get("name")
        if not name:
            continue
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        functions.append((name, function.get("description") or "", gemini_schema(parameters)))
    return functions


def gemini_usage(metadata: Any) -> TurnUsage:
    """``usage_metadata`` of a response (or ADK event) as :class:`TurnUsage`. Gemini counts
    thinking apart from the answer (``thoughts_token_count``); both are output here."""
    if metadata is None:
        return TurnUsage()
    return TurnUsage(
        input_tokens=metadata.prompt_token_count or 0,
        output_tokens=(metadata.candidates_token_count or 0) + (metadata.thoughts_token_count or 0),
        cache_read_tokens=metadata.cached_content_token_count or 0,
    )
