"""The OpenAI Responses wire format (``POST /v1/responses``), as the Codex CLI speaks it.

Codex sends the whole conversation in ``input`` (message, ``function_call`` and
``function_call_output`` items), its base instructions in ``instructions`` and the tools as
flat ``{"type": "function", "name", ...}`` entries; it always streams. Each content part of a
message becomes its own :class:`ChatEntry`, so ``[Name]: text`` lines stay recognisable.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

from ._model_script import ChatEntry, FakeModel, ModelRequest, Reply, Role
from ._openai_wire import error_body
from ._wire_text import arguments_json, estimate_tokens, pieces

__all__ = ["error_body", "parse_request", "response", "stream_events"]

_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}


def _parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        str(part.get("text", ""))
        for part in content
        if isinstance(part, Mapping) and isinstance(part.get("text"), str)
    ]


def _output_text(output: Any) -> str:
    """A ``function_call_output`` output: a string, or a list of content parts."""
    if isinstance(output, str):
        return output
    return "".join(_parts(output))


def _entries(item: Mapping[str, Any]) -> list[ChatEntry]:
    kind = item.get("type", "message")
    if kind == "message":
        role = _ROLES.get(str(item.get("role", "user")), "user")
        return [ChatEntry(role, text) for text in _parts(item.get("content"))] or [
            ChatEntry(role, "")
        ]
    if kind in ("function_call_output", "custom_tool_call_output"):
        return [ChatEntry("tool", _output_text(item.get("output")))]
    if kind in ("function_call", "custom_tool_call"):
        return [ChatEntry("assistant", "")]
    return []


def _tool_names(tools: Any) -> tuple[str, ...]:
    """Function tool names, including those inside namespaces."""
    names: list[str] = []
    for tool in tools or []:
        if not isinstance(tool, Mapping):
            continue
        if tool.get("type") == "function" and tool.get("name"):
            names.append(str(tool["name"]))
        names.extend(_tool_names(tool.get("tools")))
    return tuple(names)


def parse_request(path: str, headers: Mapping[str, str], body: dict[str, Any]) -> ModelRequest:
    """The neutral view of a ``POST /v1/responses`` body."""
    entries: list[ChatEntry] = []
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        entries.append(ChatEntry("system", instructions))
    raw_input = body.get("input")
    if isinstance(raw_input, str):
        entries.append(ChatEntry("user", raw_input))
    elif isinstance(raw_input, list):
        for item in raw_input:
            if isinstance(item, Mapping):
                entries.extend(_entries(item))
    names = _tool_names(body.get("tools"))
    return ModelRequest("responses", path, dict(headers), body, tuple(entries), names)


def _namespaces(tools: Any) -> dict[str, str]:
    """Function name -> its namespace, for tools offered inside a namespace (MCP servers)."""
    found: dict[str, str] = {}
    for tool in tools or []:
        if isinstance(tool, Mapping) and tool.get("type") == "namespace":
            for inner in tool.get("tools") or []:
                if isinstance(inner, Mapping) and inner.get("name"):
                    found.setdefault(str(inner["name"]), str(tool.get("name")))
    return found


def _items(fake: FakeModel, request: ModelRequest, reply: Reply) -> list[dict[str, Any]]:
    namespaces = _namespaces(request.body.get("tools"))
    items: list[dict[str, Any]] = []
    if reply.reasoning:
        items.append(
            {
                "type": "reasoning",
                "id": fake.next_id("rs_fake"),
                "summary": [{"type": "summary_text", "text": reply.reasoning}],
            }
        )
    if reply.text:
        # Text before tool calls is commentary; text alone is the final answer.
        items.append(
            {
                "type": "message",
                "id": fake.next_id("msg_fake"),
                "status": "completed",
                "role": "assistant",
                "phase": "commentary" if reply.tool_calls else "final_answer",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for call in reply.tool_calls:
        item = {
            "type": "function_call",
            "id": fake.next_id("fc_fake"),
            "call_id": call.id or fake.next_id("call_fake"),
            "name": call.name,
            "arguments": arguments_json(call.arguments),
            "status": "completed",
        }
        if call.name in namespaces:  # a namespaced tool is called with its namespace
            item["namespace"] = namespaces[call.name]
        items.append(item)
    return items


def _usage(request: ModelRequest, reply: Reply) -> dict[str, Any]:
    prompt = estimate_tokens(json.dumps(request.body.get("input", [])))
    # As the real API counts them, reasoning tokens are part of the output tokens.
    reasoning = estimate_tokens(reply.reasoning) if reply.reasoning else 0
    completion = (
        estimate_tokens(reply.text or "")
        + sum(estimate_tokens(arguments_json(c.arguments)) for c in reply.tool_calls)
        + reasoning
    )
    return {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": completion,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": prompt + completion,
    }


def _envelope(ident: str, request: ModelRequest, status: str) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "response",
        "created_at": int(time.time()),
        "status": status,
        "model": request.model or "fake-model",
        "output": [],
    }


def response(fake: FakeModel, request: ModelRequest, reply: Reply) -> dict[str, Any]:
    """A non-streamed ``response`` object."""
    body = _envelope(fake.next_id("resp_fake"), request, "completed")
    body.update(output=_items(fake, request, reply), usage=_usage(request, reply))
    return body


def stream_events(fake: FakeModel, request: ModelRequest, reply: Reply) -> Iterator[bytes]:
    """``response.created``, per output item added/deltas/done, then ``response.completed``."""
    ident = fake.next_id("resp_fake")
    yield _event("response.created", {"response": _envelope(ident, request, "in_progress")})
    items = _items(fake, request, reply)
    for index, item in enumerate(items):
        yield from _item_events(index, item)
    done = _envelope(ident, request, "completed")
    done.update(output=items, usage=_usage(request, reply))
    yield _event("response.completed", {"response": done})


def _item_events(index: int, item: dict[str, Any]) -> Iterator[bytes]:
    where = {"output_index": index, "item_id": item["id"]}
    if item["type"] == "reasoning":
        text = item["summary"][0]["text"]
        empty = {**item, "summary": []}
        yield _event("response.output_item.added", {"output_index": index, "item": empty})
        part = {**where, "summary_index": 0}
        blank = {"type": "summary_text", "text": ""}
        yield _event("response.reasoning_summary_part.added", {**part, "part": blank})
        for piece in pieces(text):
            yield _event("response.reasoning_summary_text.delta", {**part, "delta": piece})
        yield _event("response.reasoning_summary_text.done", {**part, "text": text})
        yield _event("response.reasoning_summary_part.done", {**part, "part": item["summary"][0]})
    elif item["type"] == "message":
        text = item["content"][0]["text"]
        yield _event(
            "response.output_item.added",
            {"output_index": index, "item": {**item, "status": "in_progress", "content": []}},
        )
        part = {"type": "output_text", "text": "", "annotations": []}
        yield _event("response.content_part.added", {**where, "content_index": 0, "part": part})
        for piece in pieces(text):
            delta = {**where, "content_index": 0, "delta": piece}
            yield _event("response.output_text.delta", delta)
        yield _event("response.output_text.done", {**where, "content_index": 0, "text": text})
    else:
        started = {**item, "arguments": "", "status": "in_progress"}
        yield _event("response.output_item.added", {"output_index": index, "item": started})
        for piece in pieces(item["arguments"], size=12):
            yield _event("response.function_call_arguments.delta", {**where, "delta": piece})
        yield _event(
            "response.function_call_arguments.done", {**where, "arguments": item["arguments"]}
        )
    yield _event("response.output_item.done", {"output_index": index, "item": item})


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()
