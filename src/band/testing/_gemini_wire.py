"""The Gemini API wire format (``generateContent`` / ``streamGenerateContent``), as
``google-genai`` speaks it: read a request, write a ``GenerateContentResponse`` or its SSE
chunks (``?alt=sse``: one ``data: {json}`` event per chunk, the last one carrying the
finish reason and the usage).

Function calls are ``functionCall`` parts with an ``id`` (the scripted one, else a fresh
``call_fakeN``; a :class:`ToolCall` scripted with ``id=""`` goes out without one, as some
Gemini models answer). Reasoning becomes a ``thought: true`` part and counts in
``thoughtsTokenCount``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ._model_script import ChatEntry, Failure, FakeModel, ModelRequest, Reply, Role, ToolCall
from ._wire_text import arguments_json, estimate_tokens, pieces

STREAM_METHOD = ":streamGenerateContent"
GENERATE_METHOD = ":generateContent"

# google.rpc status names the Gemini API puts in ``error.status``.
_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def is_gemini_path(path: str) -> bool:
    """``/v1beta/models/<model>:generateContent`` or ``...:streamGenerateContent``."""
    return path.endswith((GENERATE_METHOD, STREAM_METHOD))


def _response_text(response: Any) -> str:
    """What a function response says, as text: its ``output``/``result``/``error`` value
    (an error always reads as one), else the whole response as JSON."""
    if not isinstance(response, Mapping):
        return "" if response is None else json.dumps(response, default=str)
    if "error" in response:
        error = str(response["error"])
        return error if error.lower().startswith("error") else f"Error: {error}"
    for key in ("output", "result"):
        if key in response:
            value = response[key]
            return value if isinstance(value, str) else json.dumps(value, default=str)
    return json.dumps(response, default=str)


def _entries(content: Mapping[str, Any]) -> list[ChatEntry]:
    """One ``Content`` as entries: each text part (thoughts aside) is an entry of its own,
    each ``functionResponse`` part a ``tool`` entry."""
    role: Role = "assistant" if content.get("role") == "model" else "user"
    out: list[ChatEntry] = []
    for part in content.get("parts") or []:
        if not isinstance(part, Mapping) or part.get("thought"):
            continue
        response = part.get("functionResponse") or part.get("function_response")
        if isinstance(response, Mapping):
            out.append(ChatEntry("tool", _response_text(response.get("response"))))
        elif part.get("text"):
            out.append(ChatEntry(role, str(part["text"])))
    return out or [ChatEntry(role, "")]


def _system_text(instruction: Any) -> str:
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, Mapping):
        parts = instruction.get("parts") or []
        return "".join(str(p.get("text", "")) for p in parts if isinstance(p, Mapping))
    return ""


def _tool_names(tools: Any) -> tuple[str, ...]:
    names: list[str] = []
    for tool in tools or []:
        if not isinstance(tool, Mapping):
            continue
        declarations = tool.get("functionDeclarations") or tool.get("function_declarations")
        for declaration in declarations or []:
            if isinstance(declaration, Mapping):
                names.append(str(declaration.get("name", "")))
    return tuple(names)


def model_of(path: str) -> str:
    """The model a request path names: ``.../models/gemini-x:generateContent`` → gemini-x."""
    tail = path.rsplit("/", 1)[-1]
    return tail.split(":", 1)[0]


def parse_request(path: str, headers: Mapping[str, str], body: dict[str, Any]) -> ModelRequest:
    """The neutral view of a ``generateContent`` body (the model and the streaming choice
    come from the path, not the body: they are recorded there as ``model`` / ``stream``)."""
    entries: list[ChatEntry] = []
    system = _system_text(body.get("systemInstruction") or body.get("system_instruction"))
    if system:
        entries.append(ChatEntry("system", system))
    for content in body.get("contents") or []:
        if isinstance(content, Mapping):
            entries.extend(_entries(content))
    recorded = dict(body)
    recorded.setdefault("model", model_of(path))
    recorded["stream"] = path.endswith(STREAM_METHOD)
    names = _tool_names(body.get("tools"))
    return ModelRequest("gemini", path, dict(headers), recorded, tuple(entries), names)


def error_body(failure: Failure) -> dict[str, Any]:
    """The error envelope the Gemini API sends with a 4xx/5xx status."""
    status = failure.type or _STATUSES.get(failure.status, "UNKNOWN")
    return {"error": {"code": failure.status, "message": failure.message, "status": status}}


def _call_part(fake: FakeModel, call: ToolCall) -> dict[str, Any]:
    raw = arguments_json(call.arguments)
    try:
        args: Any = json.loads(raw)
    except ValueError:
        args = {}
    function_call: dict[str, Any] = {"name": call.name, "args": args}
    ident = fake.next_id("call_fake") if call.id is None else call.id
    if ident:
        function_call["id"] = ident
    return {"functionCall": function_call}


def _usage(request: ModelRequest, reply: Reply) -> dict[str, int]:
    prompt = estimate_tokens(json.dumps(request.body.get("contents", [])))
    completion = estimate_tokens(reply.text or "") + sum(
        estimate_tokens(arguments_json(c.arguments)) for c in reply.tool_calls
    )
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": completion}
    thoughts = estimate_tokens(reply.reasoning or "")
    if thoughts:
        usage["thoughtsTokenCount"] = thoughts
    usage["totalTokenCount"] = prompt + completion + thoughts
    return usage


def _parts(fake: FakeModel, reply: Reply) -> list[list[dict[str, Any]]]:
    """The answer's parts, one list per streamed chunk: thought and text pieces, then each
    function call whole; an empty answer is one empty text part."""
    chunks = [[{"text": p, "thought": True}] for p in pieces(reply.reasoning or "")]
    chunks += [[{"text": p}] for p in pieces(reply.text or "")]
    chunks += [[_call_part(fake, call)] for call in reply.tool_calls]
    return chunks or [[{"text": ""}]]


def _chunk(request: ModelRequest, parts: list[dict[str, Any]], ident: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}],
        "modelVersion": request.model or "fake-model",
        "responseId": ident,
    }


def _finish(request: ModelRequest, reply: Reply, chunk: dict[str, Any]) -> dict[str, Any]:
    chunk["candidates"][0]["finishReason"] = "STOP"
    chunk["usageMetadata"] = _usage(request, reply)
    return chunk


def response(fake: FakeModel, request: ModelRequest, reply: Reply) -> dict[str, Any]:
    """A non-streamed ``GenerateContentResponse``; consecutive text pieces are one part."""
    parts: list[dict[str, Any]] = []
    if reply.reasoning:
        parts.append({"text": reply.reasoning, "thought": True})
    if reply.text or not reply.tool_calls:
        parts.append({"text": reply.text or ""})
    parts.extend(_call_part(fake, call) for call in reply.tool_calls)
    return _finish(request, reply, _chunk(request, parts, fake.next_id("resp_fake")))


def stream_events(fake: FakeModel, request: ModelRequest, reply: Reply) -> Iterator[bytes]:
    """``data: {GenerateContentResponse}`` chunks, the last with ``finishReason`` and usage."""
    ident = fake.next_id("resp_fake")
    chunks = _parts(fake, reply)
    for parts in chunks[:-1]:
        yield _sse(_chunk(request, parts, ident))
    yield _sse(_finish(request, reply, _chunk(request, chunks[-1], ident)))


def _sse(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data)}\r\n\r\n".encode()
