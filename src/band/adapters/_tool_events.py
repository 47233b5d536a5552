"""Tool execution and tool/usage reporting shared by every adapter that runs Band tools.

Adapters that run their own loop (:mod:`band.adapters._loop`) and adapters that wrap a
framework's loop (LangGraph, Pydantic AI) both call these, so a tool call is executed,
judged and reported the same way everywhere: ``tool_call`` / ``tool_result`` events carry
the JSON shapes the history converters parse back (:mod:`band.converters.parsing`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from band.core.exceptions import BandToolError, RoomExecutionStoppedError
from band.core.protocols import AgentToolsProtocol
from band.core.turn import Turn
from band.core.types import AdapterFeatures, Emit, TurnUsage
from band.runtime.custom_tools import (
    CustomToolDef,
    execute_custom_tool,
    find_custom_tool,
    get_custom_tool_name,
    is_failure_result,
)

__all__ = [
    "UsageTotal",
    "anthropic_usage",
    "as_text",
    "image_blocks",
    "report_event",
    "report_tool_call",
    "report_tool_result",
    "run_band_tool",
    "run_custom_tool",
]

logger = logging.getLogger("band.adapters.tools")


def as_text(value: Any) -> str:
    """A tool result as the text a model sees (JSON for anything but a string)."""
    return value if isinstance(value, str) else json.dumps(value, default=str)


def image_blocks(output: str) -> list[tuple[str, str]] | None:
    """``(mime type, base64 data)`` of each image when ``output`` is an image result of
    ``band_read_room_file`` (``{"content": [{"type": "image", ...}]}``), else None."""
    if not output.startswith('{"content"'):
        return None
    try:
        blocks = json.loads(output).get("content")
    except (ValueError, AttributeError):
        return None
    if not isinstance(blocks, list) or not blocks:
        return None
    images = []
    for b in blocks:
        if not (isinstance(b, dict) and b.get("type") == "image" and b.get("data")):
            return None
        images.append((str(b.get("mimeType")), str(b["data"])))
    return images


@dataclass
class UsageTotal:
    """Token counts summed over the model calls of one turn."""

    usage: TurnUsage = field(default_factory=TurnUsage)

    def add(self, usage: TurnUsage) -> None:
        self.usage += usage

    def total(self) -> TurnUsage:
        return self.usage


def anthropic_usage(usage: Any) -> TurnUsage:
    """Anthropic's token counts as :class:`TurnUsage`: the Messages API's ``usage`` object, or
    the same fields in a dict (a Claude Code result's); None, or a count missing, is 0."""

    def count(name: str) -> int:
        value = usage.get(name) if isinstance(usage, Mapping) else getattr(usage, name, None)
        return int(value or 0)

    return TurnUsage(
        input_tokens=count("input_tokens"),
        output_tokens=count("output_tokens"),
        cache_read_tokens=count("cache_read_input_tokens"),
        cache_write_tokens=count("cache_creation_input_tokens"),
    )


async def report_event(tools: AgentToolsProtocol, kind: str, payload: dict[str, Any]) -> None:
    """Post a JSON event; best effort: a failed post is logged, never fails the turn."""
    try:
        await tools.send_event(json.dumps(payload, default=str), kind)
    except Exception as exc:
        logger.warning("Failed to send %s event: %s", kind, exc)


async def report_tool_call(
    tools: AgentToolsProtocol,
    features: AdapterFeatures,
    name: str,
    args: dict[str, Any],
    call_id: str,
) -> None:
    """A ``tool_call`` event ``{"name", "args", "tool_call_id"}`` when TOOL_CALLS is on."""
    if Emit.TOOL_CALLS in features.emit:
        payload = {"name": name, "args": args, "tool_call_id": call_id}
        await report_event(tools, "tool_call", payload)


async def report_tool_result(
    tools: AgentToolsProtocol,
    features: AdapterFeatures,
    name: str,
    output: str,
    call_id: str,
    *,
    is_error: bool = False,
) -> None:
    """A ``tool_result`` event ``{"name", "output", "tool_call_id"[, "is_error"]}``."""
    if Emit.TOOL_CALLS not in features.emit:
        return
    payload: dict[str, Any] = {"name": name, "output": output, "tool_call_id": call_id}
    if is_error:
        payload["is_error"] = True
    await report_event(tools, "tool_result", payload)


async def run_band_tool(
    tools: AgentToolsProtocol,
    name: str,
    args: dict[str, Any],
    custom_tools: Sequence[CustomToolDef] = (),
) -> tuple[str, bool]:
    """Run a custom tool (first) or a Band tool; return ``(output text, is_error)``.

    Errors the model can act on come back as text; only a stopped room raises.
    """
    custom = find_custom_tool(custom_tools, name)
    if custom is not None:
        return await run_custom_tool(custom, args, tools.turn)
    return await _guarded(name, _band_tool(tools, name, args))


async def run_custom_tool(
    tool: CustomToolDef, args: dict[str, Any], turn: Turn | None
) -> tuple[str, bool]:
    """Run one custom tool (its effect recorded on ``turn``); ``(output text, is_error)``."""
    return await _guarded(get_custom_tool_name(tool[0]), _custom_tool(tool, args, turn))


async def _custom_tool(
    tool: CustomToolDef, args: dict[str, Any], turn: Turn | None
) -> tuple[str, bool]:
    value = await execute_custom_tool(tool, args, turn=turn)
    return as_text(value), is_failure_result(value)


async def _band_tool(
    tools: AgentToolsProtocol, name: str, args: dict[str, Any]
) -> tuple[str, bool]:
    structured = getattr(tools, "execute_tool_call_structured", None)
    if structured is not None:
        result = await structured(name, args)
        return as_text(result.value), not result.ok
    value = await tools.execute_tool_call(name, args)
    return as_text(value), is_failure_result(value)


async def _guarded(name: str, call: Awaitable[tuple[str, bool]]) -> tuple[str, bool]:
    try:
        return await call
    except RoomExecutionStoppedError:
        raise
    except (BandToolError, ValueError) as exc:
        return f"Error: {exc}", True
    except Exception as exc:  # a custom handler's bug is the model's problem to hear
        logger.debug("Tool %s failed", name, exc_info=True)
        return f"Error executing {name}: {exc}", True
