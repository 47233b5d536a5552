"""GoogleADKAdapter on the real google-adk (the current 1.x and 1.19) and the fake Gemini API
reached through ``GOOGLE_GEMINI_BASE_URL``: a fresh runner per message with the replayed
transcript, bounded retries, tool events, declarations Gemini accepts, the config."""

from __future__ import annotations

import enum
import json
from typing import Any

import pytest

from adapters.framework_support import require
from adapters.google_support import turn

require("google.adk", "BAND_REQUIRE_GOOGLE_ADK")

from pydantic import BaseModel, ValidationError  # noqa: E402

from band.adapters import GoogleADKAdapter, GoogleADKAdapterConfig  # noqa: E402
from band.adapters.google_adk import (  # noqa: E402
    GOOGLE_ADK_MAX_GENERATION_RETRIES,
    adk_agent_name,
)
from band.converters import GoogleADKHistoryConverter  # noqa: E402
from band.core.exceptions import RoomExecutionStoppedError  # noqa: E402
from band.core.types import Capability, Emit  # noqa: E402
from band.testing import FakeAgentTools, FakeModel, ModelRequest, events_of_type  # noqa: E402

pytestmark = pytest.mark.timeout(60)

SEND = "band_send_message"


async def started(**config: Any) -> GoogleADKAdapter:
    features = config.pop("features", {})
    custom = config.pop("tools", None)
    adapter = GoogleADKAdapter(
        GoogleADKAdapterConfig(model="gemini-test", **config), additional_tools=custom, **features
    )
    await adapter.on_started("Helper Bot", "A helpful agent")
    return adapter


def user_text(request: ModelRequest) -> str:
    return "\n".join(request.texts("user"))


def test_config_defaults_match_band_sdk() -> None:
    config = GoogleADKAdapterConfig()
    assert (config.model, config.max_retries, config.system_prompt) == ("gemini-3.8-flash", 2, None)
    assert (config.max_history_messages, config.max_transcript_chars) == (50, 100_000)
    assert GOOGLE_ADK_MAX_GENERATION_RETRIES == 10
    GoogleADKAdapterConfig(max_retries=10)
    with pytest.raises(ValidationError):
        GoogleADKAdapterConfig(max_retries=11)
    with pytest.raises(ValidationError):
        GoogleADKAdapterConfig(retries=1)  # type: ignore[call-arg]
    assert {Emit.TOOL_CALLS, Emit.USAGE} == GoogleADKAdapter.SUPPORTED_EMIT


def test_band_names_become_valid_adk_agent_names() -> None:
    assert adk_agent_name("Helper Bot") == "Helper_Bot"
    assert adk_agent_name("user") == "band_user"
    assert adk_agent_name("2fast") == "band_2fast"
    assert adk_agent_name("") == "band_agent"


async def test_a_mention_is_answered_through_band_send_message(gemini_api: FakeModel) -> None:
    adapter = await started()
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello", bootstrap=True)
    assert [m["content"] for m in tools.messages_sent] == [
        "Hi Alice! Helper Bot here, answering from the offline scripted model. You said: hello"
    ]
    request = gemini_api.requests[0]
    assert request.headers["x-goog-api-key"] == "fake-key"
    # ADK's tracking headers: a property up to google-adk 1.19, a method from 1.20 on.
    assert "google-adk/" in request.headers["x-goog-api-client"]
    assert "You are Helper Bot" in request.system
    call, result = (json.loads(e["content"]) for e in tools.events_sent[:2])
    assert call["name"] == result["name"] == SEND
    assert call["tool_call_id"] == result["tool_call_id"]
    assert result["output"].startswith('{"id": "msg-') and "is_error" not in result


async def test_braces_in_the_prompt_are_text_not_adk_state(gemini_api: FakeModel) -> None:
    adapter = await started(custom_section='Answer as JSON: {"customer_id": 1}, {customer_id}')
    await turn(adapter, FakeAgentTools(), "hello")
    assert 'Answer as JSON: {"customer_id": 1}, {customer_id}' in gemini_api.requests[0].system


async def test_each_message_gets_a_fresh_runner_with_the_transcript_replayed(
    gemini_api: FakeModel,
) -> None:
    gemini_api.call_tool(SEND, {"content": "Noted.", "mentions": ["alice"]}).reply("I noted 7.")
    adapter = await started()
    tools = FakeAgentTools()
    await turn(adapter, tools, "remember 7", bootstrap=True)
    await turn(adapter, tools, "what was it?", participants="Bob joined")
    second = gemini_api.requests[2]
    assert [e.role for e in second.entries if e.role != "system"] == ["user"]  # fresh runner
    assert user_text(second) == (
        "[Previous conversation context]\n[Alice]: remember 7\n[Helper Bot]: I noted 7.\n"
        "[End of previous context]\n\n[System]: Bob joined\n[Alice]: what was it?"
    )
    assert len(adapter.sessions) == 1


async def test_bootstrap_history_is_replayed_with_tool_previews(gemini_api: FakeModel) -> None:
    long_output = "x" * 300
    raw = [
        {"role": "user", "content": "earlier", "sender_name": "Alice", "sender_type": "User"},
        {
            "role": "assistant",
            "message_type": "tool_call",
            "content": json.dumps({"name": "band_lookup_peers", "args": {}, "tool_call_id": "c1"}),
        },
        {
            "role": "assistant",
            "message_type": "tool_result",
            "content": json.dumps(
                {"name": "band_lookup_peers", "output": long_output, "tool_call_id": "c1"}
            ),
        },
    ]
    adapter = await started()
    history = GoogleADKHistoryConverter("Helper Bot").convert(raw)
    await turn(adapter, FakeAgentTools(), "now", history=history, bootstrap=True)
    text = user_text(gemini_api.requests[0])
    assert "[Alice]: earlier\n[Tool Call] band_lookup_peers ({})\n" in text
    assert f"[Tool Result] band_lookup_peers: {'x' * 200}...\n" in text


async def test_the_transcript_is_cut_to_whole_lines(gemini_api: FakeModel) -> None:
    adapter = await started(max_transcript_chars=40)
    tools = FakeAgentTools()
    for text in ("a first fairly long message", "a second fairly long message", "third"):
        await turn(adapter, tools, text)
    replayed = user_text(gemini_api.requests[-2])
    assert "[Alice]: a second fairly long message" in replayed
    assert "first" not in replayed


async def test_a_failed_tool_result_is_marked_as_an_error(gemini_api: FakeModel) -> None:
    gemini_api.call_tool(SEND, {"content": "to nobody", "mentions": []}).reply("")
    adapter = await started()
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    [result] = [json.loads(e["content"]) for e in events_of_type(tools, "tool_result")]
    assert result["is_error"] is True and result["output"].startswith("Error")


async def test_retries_are_bounded_by_max_retries(gemini_api: FakeModel) -> None:
    gemini_api.fail(503, "busy")
    adapter = await started(max_retries=1)
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    assert len(tools.messages_sent) == 1 and len(gemini_api.requests) == 3  # 503, call, answer

    gemini_api.reset()
    gemini_api.fail(503, "busy")
    quick = await started(max_retries=0)
    tools = FakeAgentTools()
    with pytest.raises(Exception, match="503"):
        await turn(quick, tools, "hello")
    assert len(gemini_api.requests) == 1
    assert [(f.provider, f.message) for f in tools.failures_sent] == [
        ("google_adk", "Internal error while processing message; see agent logs.")
    ]


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Paint(BaseModel):
    """Paint the wall."""

    colour: Colour
    coats: int = 1


async def test_every_tool_is_declared_in_gemini_s_schema_subset(gemini_api: FakeModel) -> None:
    painted: list[Paint] = []

    def paint(args: Paint) -> str:
        painted.append(args)
        return f"painted {args.colour.value}"

    gemini_api.call_tool("paint", {"colour": "blue", "coats": 2}).reply("")
    adapter = await started(
        tools=[(Paint, paint)], features={"capabilities": frozenset(Capability)}
    )
    tools = FakeAgentTools()
    await turn(adapter, tools, "paint it blue")
    assert painted == [Paint(colour=Colour.BLUE, coats=2)]
    declared = gemini_api.requests[0].body["tools"][0]["functionDeclarations"]
    names = {d["name"] for d in declared}
    assert {"paint", SEND, "band_list_memories", "band_create_task"} <= names
    text = json.dumps(declared)
    assert "$ref" not in text and "additionalProperties" not in text
    paint_schema = next(d for d in declared if d["name"] == "paint")["parameters"]
    assert paint_schema["properties"]["colour"]["enum"] == ["red", "blue"]


async def test_a_stopped_room_ends_the_turn_without_a_failure(gemini_api: FakeModel) -> None:
    def stopped(args: Paint) -> str:
        raise RoomExecutionStoppedError("room-fake")

    gemini_api.call_tool("paint", {"colour": "red"})
    adapter = await started(tools=[(Paint, stopped)])
    tools = FakeAgentTools()
    with pytest.raises(RoomExecutionStoppedError):
        await turn(adapter, tools, "paint it red")
    assert tools.failures_sent == []


async def test_usage_is_summed_over_the_run(gemini_api: FakeModel) -> None:
    adapter = await started()
    tools = FakeAgentTools()
    await turn(adapter, tools, "hello")
    [usage] = [e["metadata"]["band_usage"] for e in events_of_type(tools, "task")]
    assert usage["input_tokens"] > 0 and len(gemini_api.requests) == 2


async def test_leaving_a_room_forgets_its_transcript(gemini_api: FakeModel) -> None:
    adapter = await started()
    await turn(adapter, FakeAgentTools(), "hello")
    await adapter.on_cleanup("room-fake")
    assert adapter.histories == {} and adapter.sessions == {}


async def test_turns_share_one_model_client_closed_when_the_agent_stops(
    gemini_api: FakeModel,
) -> None:
    adapter = await started()
    await turn(adapter, FakeAgentTools(), "one")
    owner = adapter._clients
    await turn(adapter, FakeAgentTools(), "two")
    assert owner is not None and adapter._clients is owner
    assert not owner.httpx_client.is_closed and len(gemini_api.requests) == 4
    await adapter.cleanup_all()
    assert owner.httpx_client.is_closed and adapter._clients is None
