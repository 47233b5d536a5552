"""Reading a Letta answer back: the agent's texts, the tool calls it made (reported to the room
as ``tool_call``/``tool_result`` events, the send tools excepted), and the tokens it used."""

from __future__ import annotations

import json
from collections.abc import Set
from typing import Any

from band.adapters._tool_events import report_event
from band.core.protocols import AgentToolsProtocol
from band.core.types import TurnUsage
from band.runtime.tools.names import turn_effect


async def observe(
    messages: list[Any],
    tools: AgentToolsProtocol,
    *,
    report_calls: bool,
    silent: Set[str],
    external_mcp: bool,
) -> list[str]:
    """Report the tool calls Letta made (none unless ``report_calls``; never those in
    ``silent``); the agent's texts. ``external_mcp``: another's MCP server ran the tools, so
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
                if report_calls and call.name not in silent:
                    await _report(
                        tools, "tool_call", call.name, call.tool_call_id, args=call.arguments
                    )
        elif kind == "tool_return_message":
            for result in getattr(item, "tool_returns", None) or [item]:
                name = calls.pop(result.tool_call_id, "unknown")
                ok = getattr(result, "status", "success") == "success"
                if ok and external_mcp:
                    # Our own server records its calls on the turn; another's only shows here.
                    tools.turn.record(turn_effect(name))
                if report_calls and name not in silent:
                    await _report(
                        tools,
                        "tool_result",
                        name,
                        result.tool_call_id,
                        output=result.tool_return,
                        failed=not ok,
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


async def _report(
    tools: AgentToolsProtocol,
    kind: str,
    name: str,
    call_id: str,
    *,
    args: Any = None,
    output: Any = None,
    failed: bool = False,
) -> None:
    payload: dict[str, Any] = {"name": name, "tool_call_id": call_id}
    if kind == "tool_call":
        payload["args"] = _json_args(args)
    else:
        payload["output"] = output if isinstance(output, str) else json.dumps(output, default=str)
        if failed:
            payload["is_error"] = True
    await report_event(tools, kind, payload)


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
