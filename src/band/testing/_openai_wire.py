"""The OpenAI Chat Completions wire format: read a request, write an answer or SSE chunks."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

from ._model_script import ChatEntry, Failure, FakeModel, ModelRequest, Reply, Role
from ._wire_text import arguments_json, estimate_tokens, pieces

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_exceeded",
}


def _text_of(content: Any) -> str:
    """Content may be a string or a list of parts; only text parts count."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return str(content)


def parse_request(path: str, headers: Mapping[str, str], body: dict[str, Any]) -> ModelRequest:
    """The neutral view of a ``POST /v1/chat/completions`` body."""
    entries: list[ChatEntry] = []
    for message in body.get("messages") or []:
        if not isinstance(message, Mapping):
            continue
        raw_role = str(message.get("role", "user"))
        role: Role = "system" if raw_role == "developer" else _role(raw_role)
        entries.append(ChatEntry(role, _text_of(message.get("content"))))
    names = tuple(
        str(tool["function"].get("name", ""))
        for tool in body.get("tools") or []
        if isinstance(tool, Mapping) and isinstance(tool.get("function"), Mapping)
    )
    return ModelRequest("openai", path, dict(headers), body, tuple(entries), names)


def _role(raw: str) -> Role:
    if raw in ("system", "user", "assistant", "tool"):
        return raw  # type: ignore[return-value]
    return "user"


def error_body(failure: Failure) -> dict[str, Any]:
    """The error envelope OpenAI sends with a 4xx/5xx status."""
    kind = failure.type or _ERROR_TYPES.get(failure.status, "server_error")
    return {"error": {"message": failure.message, "type": kind, "param": None, "code": None}}


def _tool_calls(fake: FakeModel, reply: Reply) -> list[dict[str, Any]]:
    return [
        {
            "id": call.id or fake.next_id("call_fake"),
            "type": "function",
            "function": {"name": call.name, "arguments": arguments_json(call.arguments)},
        }
        for call in reply.tool_calls
    ]


def _usage(request: ModelRequest, reply: Reply) -> dict[str, int]:
    prompt = estimate_tokens(json.dumps(request.body.get("messages", [])))
    completion = estimate_tokens(reply.text or "") + sum(
        estimate_tokens(arguments_json(c.arguments)) for c in reply.tool_calls
    )
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def completion(fake: FakeModel, request: ModelRequest, reply: Reply) -> dict[str, Any]:
    """A non-streamed ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.reasoning:  # as DeepSeek-style compatible servers send it
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls:
        message["tool_calls"] = _tool_calls(fake, reply)
    return {
        "id": fake.next_id("chatcmpl-fake"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model or "fake-model",
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": _usage(request, reply),
    }


def stream_events(fake: FakeModel, request: ModelRequest, reply: Reply) -> Iterator[bytes]:
    """``chat.completion.chunk`` SSE lines: role, text deltas, tool-call deltas, finish, [DONE]."""
    ident = fake.next_id("chatcmpl-fake")
    created = int(time.time())
    model = request.model or "fake-model"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        return _sse(_chunk_object(ident, created, model, [choice]))

    yield chunk({"role": "assistant", "content": ""})
    for piece in pieces(reply.reasoning or ""):
        yield chunk({"reasoning_content": piece})
    for piece in pieces(reply.text or ""):
        yield chunk({"content": piece})
    for index, call in enumerate(_tool_calls(fake, reply)):
        head = {
            "index": index,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        yield chunk({"tool_calls": [head]})
        for piece in pieces(call["function"]["arguments"], size=12):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    yield chunk({}, "tool_calls" if reply.tool_calls else "stop")
    options = request.body.get("stream_options")
    if isinstance(options, Mapping) and options.get("include_usage"):
        usage_chunk = _chunk_object(ident, created, model, [])
        usage_chunk["usage"] = _usage(request, reply)
        yield _sse(usage_chunk)
    yield b"data: [DONE]\n\n"


def _chunk_object(ident: str, created: int, model: str, choices: list[Any]) -> dict[str, Any]:
    return {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "choices": choices,
    }


def _sse(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data)}\n\n".encode()
