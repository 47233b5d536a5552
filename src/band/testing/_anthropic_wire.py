"""The Anthropic Messages wire format: read a request, write a message or its SSE events."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ._model_script import ChatEntry, Failure, FakeModel, ModelRequest, Reply, Role
from ._wire_text import arguments_json, estimate_tokens, pieces

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _block_text(content: Any) -> str:
    """Text of a string or of the text blocks in a list of blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, Mapping) and block.get("type") == "text"
        )
    return ""


def _entries(message: Mapping[str, Any]) -> list[ChatEntry]:
    """One message as entries; each tool_result block becomes its own ``tool`` entry."""
    role: Role = "assistant" if message.get("role") == "assistant" else "user"
    content = message.get("content")
    if not isinstance(content, list):
        return [ChatEntry(role, _block_text(content))]
    out: list[ChatEntry] = []
    text: list[str] = []
    for block in content:  # in block order: text after a tool result is read after it
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text":
            text.append(str(block.get("text", "")))
        elif block.get("type") == "tool_result":
            if "".join(text):
                out.append(ChatEntry(role, "".join(text)))
            text = []
            out.append(ChatEntry("tool", _block_text(block.get("content", ""))))
    if "".join(text):
        out.append(ChatEntry(role, "".join(text)))
    if not out:
        out.append(ChatEntry(role, ""))
    return out


def parse_request(path: str, headers: Mapping[str, str], body: dict[str, Any]) -> ModelRequest:
    """The neutral view of a ``POST /v1/messages`` body."""
    entries: list[ChatEntry] = []
    system = _block_text(body.get("system", ""))
    if system:
        entries.append(ChatEntry("system", system))
    for message in body.get("messages") or []:
        if isinstance(message, Mapping):
            entries.extend(_entries(message))
    names = tuple(
        str(tool.get("name", "")) for tool in body.get("tools") or [] if isinstance(tool, Mapping)
    )
    return ModelRequest("anthropic", path, dict(headers), body, tuple(entries), names)


def error_body(failure: Failure) -> dict[str, Any]:
    """The error envelope Anthropic sends with a 4xx/5xx status."""
    kind = failure.type or _ERROR_TYPES.get(failure.status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": failure.message}}


def _blocks(fake: FakeModel, reply: Reply) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for call in reply.tool_calls:
        raw = arguments_json(call.arguments)
        try:
            parsed: Any = json.loads(raw)
        except ValueError:
            parsed = {}
        blocks.append(
            {
                "type": "tool_use",
                "id": call.id or fake.next_id("toolu_fake"),
                "name": call.name,
                "input": parsed,
                "_raw": raw,  # streamed as input_json_delta pieces, removed before sending
            }
        )
    return blocks


def _usage(request: ModelRequest, reply: Reply) -> tuple[int, int]:
    prompt = estimate_tokens(json.dumps(request.body.get("messages", [])))
    completion = estimate_tokens(reply.text or "") + sum(
        estimate_tokens(arguments_json(c.arguments)) for c in reply.tool_calls
    )
    return prompt, completion


def _public(block: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in block.items() if key != "_raw"}


def message(fake: FakeModel, request: ModelRequest, reply: Reply) -> dict[str, Any]:
    """A non-streamed ``message`` object."""
    prompt, completion = _usage(request, reply)
    return {
        "id": fake.next_id("msg_fake"),
        "type": "message",
        "role": "assistant",
        "model": request.model or "fake-model",
        "content": [_public(b) for b in _blocks(fake, reply)],
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }


def stream_events(fake: FakeModel, request: ModelRequest, reply: Reply) -> Iterator[bytes]:
    """message_start, per block start/deltas/stop, message_delta, message_stop."""
    prompt, completion = _usage(request, reply)
    head = message(fake, request, Reply())
    head.update(content=[], stop_reason=None, usage={"input_tokens": prompt, "output_tokens": 1})
    yield _event("message_start", {"type": "message_start", "message": head})
    yield _event("ping", {"type": "ping"})
    for index, block in enumerate(_blocks(fake, reply)):
        if block["type"] == "text":
            start: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
        else:
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": p}
                for p in pieces(block["_raw"], size=12)
            ]
        yield _event(
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": start},
        )
        for delta in deltas:
            yield _event(
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            )
        yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
    stop = "tool_use" if reply.tool_calls else "end_turn"
    yield _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": completion},
        },
    )
    yield _event("message_stop", {"type": "message_stop"})


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
