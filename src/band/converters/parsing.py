"""Parsers for tool events: the JSON content of ``tool_call`` and ``tool_result`` events."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

__all__ = [
    "INTERRUPTED_TOOL_TEXT",
    "ParsedToolCall",
    "ParsedToolResult",
    "parse_tool_call",
    "parse_tool_result",
]

logger = logging.getLogger("band.converters.parsing")
INTERRUPTED_TOOL_TEXT = "Error: tool execution was interrupted"


@dataclass(frozen=True)
class ParsedToolCall:
    """``{"name", "args", "tool_call_id"}`` of a tool_call event."""

    name: str
    args: dict[str, Any]
    tool_call_id: str


@dataclass(frozen=True)
class ParsedToolResult:
    """``{"name", "output", "tool_call_id", "is_error"}`` of a tool_result event."""

    name: str
    output: str
    tool_call_id: str
    is_error: bool = False


def _load(content: str, kind: str) -> dict[str, Any] | None:
    try:
        data = json.loads(content)
    except (TypeError, ValueError):
        logger.warning("Ignoring %s event: content is not JSON", kind)
        return None
    if not isinstance(data, dict):
        logger.warning("Ignoring %s event: content is not a JSON object", kind)
        return None
    return data


def parse_tool_call(content: str) -> ParsedToolCall | None:
    """Parse a tool_call event; None (with a warning) when name or tool_call_id is missing."""
    data = _load(content, "tool_call")
    if data is None:
        return None
    name, call_id = data.get("name"), data.get("tool_call_id")
    if not isinstance(name, str) or not name or not isinstance(call_id, str) or not call_id:
        logger.warning("Ignoring tool_call event without name or tool_call_id")
        return None
    args = data.get("args")
    return ParsedToolCall(
        name=name, args=args if isinstance(args, dict) else {}, tool_call_id=call_id
    )


def parse_tool_result(content: str, *, require_call_id: bool = True) -> ParsedToolResult | None:
    """Parse a tool_result event; ``output`` is always text."""
    data = _load(content, "tool_result")
    if data is None:
        return None
    name, call_id = data.get("name"), data.get("tool_call_id")
    if not isinstance(name, str) or not name:
        logger.warning("Ignoring tool_result event without name")
        return None
    if not isinstance(call_id, str) or not call_id:
        if require_call_id:
            logger.warning("Ignoring tool_result event without tool_call_id")
            return None
        call_id = ""
    output = data.get("output")
    return ParsedToolResult(
        name=name,
        output="" if output is None else str(output),
        tool_call_id=call_id,
        is_error=bool(data.get("is_error", False)),
    )
