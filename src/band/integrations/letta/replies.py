"""Reading a Letta answer back: the agent's texts, the tool calls it made (reported to the room
as ``tool_call``/``tool_result`` events, the send tools excepted), and the tokens it used."""

from __future__ import annotations

import json
from collections.abc import Set
from typing import Any

from band.adapters._tool_events import as_text, report_tool_call, report_tool_result
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures, TurnUsage
from band.runtime.tools.names import turn_effect


async def observe(
    messages: list[Any],
    tools: AgentToolsProtocol,
    *,
    features: AdapterFeatures,
    silent: Set[str],
    external_mcp: bool,
) -> list[str]:
    """Report the tool calls Letta made (as ``features`` ask; never those in ``silent``);
    the agent's texts. ``external_mcp``: another's MCP server ran the tools, so
    their effects are recorded on the turn here."""
    texts: list[str] = []
    calls: dict[str, str] = {}
    for item in messages:
        kind = getattr(item, "message_type", None)
        if kind == "assistant_message" and (text := _content_text(item)):
            texts.append(text)
        elif kind == "tool_call_message":
            for call in getattr(item, "tool_calls", None) or [item.tool_call]:
                calls[call.tool_call_id] = call.name
                if call.name not in silent:
                    args = _json_args(call.arguments)
                    await report_tool_call(tools, features, call.name, args, call.tool_call_id)
        elif kind == "tool_return_message":
            for result in getattr(item, "tool_returns", None) or [item]:
                name = calls.pop(result.tool_call_id, "unknown")
                ok = getattr(result, "status", "success") == "success"
                if ok and external_mcp:
                    # Our own server records its calls on the turn; another's only shows here.
                    tools.turn.record(turn_effect(name))
                if name not in silent:
                    output = as_text(result.tool_return)
                    await report_tool_result(
                        tools, features, name, output, result.tool_call_id, is_error=not ok
                    )
    return texts


def turn_usage(usage: Any) -> TurnUsage:
    """The tokens of Letta's usage statistics (none when it sent none)."""
    if usage is None:
        return TurnUsage()
    return TurnUsage(
        input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
    )


def _content_text(item: Any) -> str:
    content = getattr(item, "content", "")
    if isinstance(content, str):
        return content
    return "".join(str(getattr(part, "text", "")) for part in content or [])


def _json_args(arguments: Any) -> Any:
    try:
        return json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return arguments
