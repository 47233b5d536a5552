"""The fake Gemini API on the wire: the JSON and SSE google-genai reads, no client needed.

The same endpoint is driven through the real google-genai client in
tests/adapters/gemini/test_fake_gemini_client.py (its own venv).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from band.testing import (
    FakeModel,
    FakeModelApp,
    Reply,
    ToolCall,
    fake_gemini_server,
)

GENERATE = "/v1beta/models/gemini-test:generateContent"
STREAM = "/v1beta/models/gemini-test:streamGenerateContent"

SEND_TOOL = {
    "functionDeclarations": [
        {
            "name": "band_send_message",
            "description": "Send a message to the room.",
            "parameters_json_schema": {"type": "object", "properties": {}},
        }
    ]
}


def _client(fake: FakeModel) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=FakeModelApp(fake))
    return httpx.AsyncClient(transport=transport, base_url="http://fake.test")


def _body(*contents: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"contents": list(contents), **extra}


def _user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": t} for t in texts]}


def _events(raw: str) -> list[dict[str, Any]]:
    assert raw.endswith("\r\n\r\n")
    chunks = raw.split("\r\n\r\n")[:-1]
    assert all(chunk.startswith("data: ") for chunk in chunks)
    return [json.loads(chunk.removeprefix("data: ")) for chunk in chunks]


async def test_generate_content_answers_text_and_usage() -> None:
    fake = FakeModel().reply("Hello there.")
    async with _client(fake) as http:
        response = await http.post(GENERATE, json=_body(_user("hi")))
    assert response.status_code == 200
    body = response.json()
    candidate = body["candidates"][0]
    assert candidate["content"] == {"role": "model", "parts": [{"text": "Hello there."}]}
    assert candidate["finishReason"] == "STOP"
    usage = body["usageMetadata"]
    assert usage["promptTokenCount"] > 0 and usage["candidatesTokenCount"] > 0
    assert usage["totalTokenCount"] == usage["promptTokenCount"] + usage["candidatesTokenCount"]
    assert body["modelVersion"] == "gemini-test"


async def test_function_calls_carry_ids_unless_scripted_without() -> None:
    fake = FakeModel().call_tools(
        ToolCall("band_send_message", {"content": "hi", "mentions": ["alice"]}, id="call_1"),
        ToolCall("band_no_reply", {}, id=""),
        ToolCall("band_lookup_peers", '{"page": 2}'),
        text="Let me answer.",
    )
    async with _client(fake) as http:
        body = (await http.post(GENERATE, json=_body(_user("hi")))).json()
    parts = body["candidates"][0]["content"]["parts"]
    assert parts[0] == {"text": "Let me answer."}
    assert parts[1] == {
        "functionCall": {
            "name": "band_send_message",
            "args": {"content": "hi", "mentions": ["alice"]},
            "id": "call_1",
        }
    }
    assert parts[2] == {"functionCall": {"name": "band_no_reply", "args": {}}}
    assert parts[3]["functionCall"]["args"] == {"page": 2}
    assert parts[3]["functionCall"]["id"].startswith("call_fake")


async def test_the_request_is_recorded_with_system_tools_and_function_responses() -> None:
    fake = FakeModel().reply("ok")
    body = _body(
        _user("[System]: Alice joined", "[Alice]: hi"),
        {
            "role": "model",
            "parts": [{"functionCall": {"id": "c1", "name": "band_send_message", "args": {}}}],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "c1",
                        "name": "band_send_message",
                        "response": {"error": "no mentions"},
                    }
                }
            ],
        },
        systemInstruction={"role": "user", "parts": [{"text": "You are Helper, an agent."}]},
        tools=[SEND_TOOL],
    )
    async with _client(fake) as http:
        await http.post(GENERATE, json=body, headers={"x-goog-api-key": "k"})
    request = fake.last_request
    assert request.api == "gemini" and request.model == "gemini-test"
    assert request.stream is False
    assert request.system == "You are Helper, an agent."
    assert request.tool_names == ("band_send_message",)
    assert request.texts("user") == ["[System]: Alice joined", "[Alice]: hi"]
    assert request.texts("tool") == ["Error: no mentions"]
    assert request.headers["x-goog-api-key"] == "k"


async def test_stream_generate_content_sends_sse_chunks_ending_with_finish_and_usage() -> None:
    call = ToolCall("band_send_message", {"content": "done"}, id="c9")
    fake = FakeModel().queue(Reply(text="two words", reasoning="thinking", tool_calls=(call,)))
    async with _client(fake) as http:
        response = await http.post(f"{STREAM}?alt=sse", json=_body(_user("hi")))
    assert response.headers["content-type"] == "text/event-stream"
    chunks = _events(response.text)
    parts = [chunk["candidates"][0]["content"]["parts"][0] for chunk in chunks]
    assert parts[0] == {"text": "thinking", "thought": True}
    assert "".join(p.get("text", "") for p in parts[1:]) == "two words"
    assert parts[-1] == {
        "functionCall": {"name": "band_send_message", "args": {"content": "done"}, "id": "c9"}
    }
    assert all("finishReason" not in chunk["candidates"][0] for chunk in chunks[:-1])
    last = chunks[-1]
    assert last["candidates"][0]["finishReason"] == "STOP"
    assert last["usageMetadata"]["thoughtsTokenCount"] > 0
    assert len({chunk["responseId"] for chunk in chunks}) == 1
    assert fake.last_request.stream is True


@pytest.mark.parametrize(
    ("status", "name"),
    [
        (400, "INVALID_ARGUMENT"),
        (429, "RESOURCE_EXHAUSTED"),
        (500, "INTERNAL"),
        (503, "UNAVAILABLE"),
    ],
)
async def test_scripted_errors_use_the_google_error_envelope(status: int, name: str) -> None:
    fake = FakeModel().fail(status, "scripted failure")
    async with _client(fake) as http:
        response = await http.post(GENERATE, json=_body(_user("hi")))
    assert response.status_code == status
    assert response.json() == {
        "error": {"code": status, "message": "scripted failure", "status": name}
    }


async def test_default_policy_answers_the_last_speaker_of_a_transcript_text() -> None:
    """ADK replays history and the live line as one text: the last speaker is answered."""
    fake = FakeModel()
    text = (
        "[Previous conversation context]\n[Alice]: remember 7\n[Helper]: noted\n"
        "[End of previous context]\n\n[System]: Participants:\n- @alice — Alice (User)\n"
        "[Alice]: what was it?"
    )
    async with _client(fake) as http:
        body = (await http.post(GENERATE, json=_body(_user(text), tools=[SEND_TOOL]))).json()
    call = body["candidates"][0]["content"]["parts"][0]["functionCall"]
    assert call["name"] == "band_send_message"
    assert call["args"]["mentions"] == ["alice"]
    assert call["args"]["content"].endswith("You said: what was it?")


def test_loopback_server_serves_generate_content() -> None:
    with fake_gemini_server(FakeModel().reply("over loopback")) as base_url:
        response = httpx.post(f"{base_url}{GENERATE}", json=_body(_user("hi")))
    assert response.json()["candidates"][0]["content"]["parts"] == [{"text": "over loopback"}]
