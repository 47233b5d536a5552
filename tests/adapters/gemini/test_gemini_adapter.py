"""GeminiAdapter's own behaviour on google-genai and the fake Gemini API: the config,
the lazily created client (``GOOGLE_GEMINI_BASE_URL``), transient retries, the tool-round
bound, what the model is sent back, the history cap and the converter."""

from __future__ import annotations

import base64
import json
import logging
import socket
from typing import Any

import pytest

from adapters.framework_support import require
from adapters.google_support import turn

require("google.genai", "BAND_REQUIRE_GEMINI")

from google.genai import types  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from band.adapters import GeminiAdapter, GeminiAdapterConfig  # noqa: E402
from band.adapters._loop import ModelCall, ToolOutcome  # noqa: E402
from band.adapters.gemini import TRANSIENT, _refusal, _response_part  # noqa: E402
from band.converters import GeminiHistoryConverter  # noqa: E402
from band.converters.parsing import INTERRUPTED_TOOL_TEXT  # noqa: E402
from band.core.exceptions import ProviderRunError  # noqa: E402
from band.core.types import Emit  # noqa: E402
from band.testing import (  # noqa: E402
    FakeAgentTools,
    FakeModel,
    Reply,
    ToolCall,
    events_of_type,
    gemini_client,
)

pytestmark = pytest.mark.timeout(60)

SEND = "band_send_message"


async def started(fake: FakeModel, **config: Any) -> GeminiAdapter:
    config.setdefault("retry_base_delay_s", 0)
    adapter = GeminiAdapter(GeminiAdapterConfig(model="gemini-test", **config))
    adapter.client = gemini_client(fake)
    await adapter.on_started("Helper", "A helpful agent")
    return adapter


def test_config_defaults_match_band_sdk_and_refuse_unknown_fields() -> None:
    config = GeminiAdapterConfig(provider_key="secret")
    assert (config.model, config.max_tool_rounds, config.max_retries) == ("gemini-3.8-flash", 20, 2)
    assert (config.retry_base_delay_s, config.max_history_messages) == (1.0, 200)
    assert config.include_base_instructions and config.custom_section == ""
    assert "secret" not in repr(config)
    with pytest.raises(ValidationError):
        GeminiAdapterConfig(max_tools=3)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        GeminiAdapterConfig(max_tool_rounds=0)
    assert {Emit.TOOL_CALLS, Emit.USAGE} == GeminiAdapter.SUPPORTED_EMIT


async def test_the_client_is_created_on_the_first_message_from_the_environment(
    gemini_api: FakeModel,
) -> None:
    adapter = GeminiAdapter(GeminiAdapterConfig(model="gemini-test", provider_key="k-123"))
    assert adapter.client is None  # no key needed to build it
    await adapter.on_started("Helper", "A helpful agent")
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello", bootstrap=True)
    assert adapter.client is not None
    request = gemini_api.requests[0]
    assert request.headers["x-goog-api-key"] == "k-123"
    assert request.path.endswith("/models/gemini-test:generateContent")
    assert "You are Helper" in request.system
    assert [m["content"] for m in tools.messages_sent] == [
        "Hi Alice! Helper here, answering from the offline scripted model. You said: hello"
    ]


async def test_without_a_key_the_first_message_says_how_to_give_one(
    gemini_api: FakeModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GOOGLE_API_KEY")
    adapter = GeminiAdapter(GeminiAdapterConfig(model="gemini-test"))
    await adapter.on_started("Helper", "")
    with pytest.raises(ValueError, match="set GOOGLE_API_KEY / GEMINI_API_KEY"):
        await turn(adapter, FakeAgentTools(), "hello")


async def test_transient_errors_are_retried_then_answered() -> None:
    fake = FakeModel().fail(503, "busy").fail(500, "oops")
    adapter = await started(fake)
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    assert len(tools.messages_sent) == 1
    assert len(fake.requests) == 4  # 2 failures, then the tool call and the final answer
    assert tools.failures_sent == []


async def test_a_connection_that_fails_is_retried_with_doubling_delays(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", f"http://127.0.0.1:{port}")
    adapter = GeminiAdapter(
        GeminiAdapterConfig(provider_key="k", max_retries=2, retry_base_delay_s=0.01)
    )
    await adapter.on_started("Helper", "")
    tools = FakeAgentTools()
    with caplog.at_level(logging.WARNING, "band.adapters.gemini"), pytest.raises(TRANSIENT):
        await turn(adapter, tools, "hello")
    retries = [r.getMessage() for r in caplog.records if "transient" in r.getMessage()]
    assert [m.split("retrying in ")[1] for m in retries] == ["0.01s", "0.02s"]
    assert [f.provider for f in tools.failures_sent] == ["gemini"]


async def test_retries_run_out_into_one_gemini_failure() -> None:
    fake = FakeModel().fail(503, "busy").fail(503, "still busy")
    adapter = await started(fake, max_retries=1)
    tools = FakeAgentTools()
    with pytest.raises(Exception, match="503 UNAVAILABLE"):
        await turn(adapter, tools, "hello")
    assert len(fake.requests) == 2
    [failure] = tools.failures_sent
    assert (failure.provider, failure.code, failure.detail) == (
        "gemini",
        "UNAVAILABLE",
        "still busy",
    )
    assert "still busy" in failure.message


async def test_a_client_error_is_not_retried() -> None:
    fake = FakeModel().fail(400, "bad request")
    adapter = await started(fake)
    tools = FakeAgentTools()
    with pytest.raises(Exception, match="400"):
        await turn(adapter, tools, "hello")
    assert len(fake.requests) == 1
    assert [f.provider for f in tools.failures_sent] == ["gemini"]


async def test_the_tool_round_bound_is_reported_with_the_sequence() -> None:
    fake = FakeModel(lambda request: Reply(tool_calls=(ToolCall("band_lookup_peers"),)))
    adapter = await started(fake, max_tool_rounds=2)
    tools = FakeAgentTools()
    with pytest.raises(RuntimeError, match="Exceeded max tool rounds"):
        await turn(adapter, tools, "loop forever")
    [failure] = tools.failures_sent
    assert failure.provider == "gemini"
    assert failure.message == (
        "Exceeded max tool rounds (2) in room room-fake;"
        " tool sequence: [['band_lookup_peers'], ['band_lookup_peers']]"
    )
    assert len(fake.requests) == 2


async def test_a_failed_tool_goes_back_as_an_error_response_and_a_marked_event() -> None:
    fake = FakeModel().call_tool(SEND, {"content": "to nobody", "mentions": []}, id="c1")
    fake.call_tool(SEND, {"content": "Hi Alice", "mentions": ["alice"]}, id="c2").reply("")
    adapter = await started(fake)
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    results = [json.loads(e["content"]) for e in events_of_type(tools, "tool_result")]
    assert [(r["tool_call_id"], r.get("is_error", False)) for r in results] == [
        ("c1", True),
        ("c2", False),
    ]
    sent_back = fake.requests[1].body["contents"][-1]["parts"][0]["functionResponse"]
    assert sent_back["id"] == "c1" and set(sent_back["response"]) == {"error"}
    assert [m["content"] for m in tools.messages_sent] == ["Hi Alice"]


async def test_plain_text_is_not_posted_and_usage_counts_thoughts_as_output() -> None:
    fake = FakeModel().reply("just text")
    adapter = await started(fake)
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    assert tools.messages_sent == []  # band-sdk's Gemini answers only through band_send_message
    [usage] = [e["metadata"]["band_usage"] for e in events_of_type(tools, "task")]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0


async def test_updates_and_the_message_are_one_user_turn_and_history_seeds_the_room() -> None:
    fake = FakeModel()
    adapter = await started(fake)
    history = GeminiHistoryConverter("Helper").convert(
        [
            {"role": "user", "content": "earlier", "sender_name": "Alice", "sender_type": "User"},
            {
                "role": "assistant",
                "content": "noted",
                "sender_name": "Helper",
                "sender_type": "Agent",
            },
        ]
    )
    await turn(
        adapter, FakeAgentTools(), "now", history=history, participants="Bob joined", bootstrap=True
    )
    contents = fake.requests[0].body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert [p["text"] for p in contents[-1]["parts"]] == ["[System]: Bob joined", "[Alice]: now"]


async def test_the_room_keeps_at_most_max_history_messages_starting_on_a_user_turn() -> None:
    fake = FakeModel()
    adapter = await started(fake, max_history_messages=6)
    tools = FakeAgentTools()
    for text in ("one", "two", "three"):
        await turn(adapter, tools, text)  # 4 turns each: message, call, result, answer
    kept = adapter.rooms["room-fake"]
    assert 0 < len(kept) <= 6
    assert kept[0].role == "user"
    assert all(p.function_response is None for p in kept[0].parts or [])
    assert kept[0].parts[-1].text == "[Alice]: three"


def test_an_answer_stopped_for_safety_is_a_provider_error() -> None:
    stopped = types.GenerateContentResponse(
        candidates=[types.Candidate(finish_reason=types.FinishReason.SAFETY, finish_message="no")]
    )
    refusal = _refusal(stopped)
    assert isinstance(refusal, ProviderRunError) and (refusal.code, refusal.detail) == (
        "SAFETY",
        "no",
    )
    blocked = types.GenerateContentResponse(
        prompt_feedback=types.GenerateContentResponsePromptFeedback(
            block_reason=types.BlockedReason.PROHIBITED_CONTENT
        )
    )
    assert _refusal(blocked) is not None
    fine = types.GenerateContentResponse(
        candidates=[types.Candidate(finish_reason=types.FinishReason.STOP)]
    )
    assert _refusal(fine) is None


def test_an_image_read_from_the_room_goes_back_as_inline_data() -> None:
    png = b"\x89PNG fake"
    output = json.dumps(
        {
            "content": [
                {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"}
            ]
        }
    )
    part = _response_part(ToolOutcome(ModelCall("c1", "band_read_room_file", {}), output, False))
    response = part.function_response
    assert response is not None and response.response == {"output": "[1 image(s) attached]"}
    [inline] = response.parts or []
    assert inline.inline_data.mime_type == "image/png" and inline.inline_data.data == png


def test_the_converter_pairs_tool_events_and_keeps_turns_alternating() -> None:
    def event(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "content": json.dumps(payload), "message_type": kind}

    raw = [
        {"role": "user", "content": "hi", "sender_name": "Alice", "sender_type": "User"},
        event("tool_call", {"name": SEND, "args": {"content": "yo"}, "tool_call_id": "c1"}),
        event("tool_result", {"name": SEND, "output": "sent", "tool_call_id": "c1"}),
        {"role": "user", "content": "again", "sender_name": "Alice", "sender_type": "User"},
        event("tool_call", {"name": "band_lookup_peers", "args": {}, "tool_call_id": "c2"}),
    ]
    contents = GeminiHistoryConverter("Helper").convert(raw)
    assert [c.role for c in contents] == ["user", "model", "user", "model", "user"]
    call = contents[1].parts[0].function_call
    assert (call.id, call.name, call.args) == ("c1", SEND, {"content": "yo"})
    response, line = contents[2].parts
    assert response.function_response.response == {"output": "sent"}
    assert line.text == "[Alice]: again"
    orphan = contents[4].parts[0].function_response
    assert orphan.id == "c2" and orphan.response == {"error": INTERRUPTED_TOOL_TEXT}


async def test_a_call_without_an_id_gets_one_for_its_events_and_response() -> None:
    fake = FakeModel().call_tool(SEND, {"content": "Hi", "mentions": ["alice"]}, id="").reply("")
    adapter = await started(fake)
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    call, result = (json.loads(e["content"]) for e in tools.events_sent[:2])
    assert call["tool_call_id"] == result["tool_call_id"] == "gemini_tool_call_0"
    response = fake.requests[1].body["contents"][-1]["parts"][0]["functionResponse"]
    assert response["id"] == "gemini_tool_call_0"
