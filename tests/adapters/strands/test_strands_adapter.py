"""StrandsAdapter beyond the conformance suite: its converter, native tools, config."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.framework_support import require

require("strands", "BAND_REQUIRE_STRANDS")

import strands  # noqa: E402
from pydantic import ValidationError  # noqa: E402
from strands.models.openai import OpenAIModel  # noqa: E402

from adapters.turn_support import load_example, room_tools, turn  # noqa: E402
from band.adapters import StrandsAdapter, StrandsAdapterConfig  # noqa: E402
from band.converters import StrandsHistoryConverter  # noqa: E402
from band.converters.strands import ConverseTranscript  # noqa: E402
from band.runtime.custom_tools import declares_turn_effect  # noqa: E402
from band.runtime.tools import TurnEffect  # noqa: E402
from band.testing import FakeModel  # noqa: E402

pytestmark = pytest.mark.timeout(60)


def adapter(base_url: str, **kwargs: Any) -> StrandsAdapter:
    model = OpenAIModel(
        client_args={"base_url": base_url, "api_key": "fake", "max_retries": 0},
        model_id="fake-model",
    )
    return StrandsAdapter(llm=model, **kwargs)


def test_history_becomes_paired_tool_use_and_alternating_roles() -> None:
    call = {"name": "band_lookup_peers", "args": {"page": 1}, "tool_call_id": "t1"}
    result = {"name": "band_lookup_peers", "output": "[]", "tool_call_id": "t1"}
    raw = [
        {
            "message_type": "text",
            "content": "find a peer",
            "sender_name": "Alice",
            "sender_type": "User",
        },
        {"message_type": "tool_call", "content": json.dumps(call)},
        {
            "message_type": "text",
            "content": "any news?",
            "sender_name": "Bob",
            "sender_type": "User",
        },
        {"message_type": "tool_result", "content": json.dumps(result)},
        {
            "message_type": "text",
            "content": "None found.",
            "sender_name": "Bot",
            "sender_type": "Agent",
        },
    ]
    messages = StrandsHistoryConverter("Bot").convert(raw)
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[1]["content"] == [
        {"toolUse": {"toolUseId": "t1", "name": "band_lookup_peers", "input": {"page": 1}}}
    ]
    # The result first, then Bob's line that arrived while the call was open, merged.
    assert messages[2]["content"][0]["toolResult"]["toolUseId"] == "t1"
    assert messages[2]["content"][1] == {"text": "[Bob]: any news?"}
    assert messages[3]["content"] == [{"text": "None found."}]


def test_an_unanswered_call_gets_an_error_result() -> None:
    call = {"name": "band_lookup_peers", "args": {}, "tool_call_id": "t9"}
    messages = StrandsHistoryConverter("Bot").convert(
        [{"message_type": "tool_call", "content": json.dumps(call)}]
    )
    result = messages[-1]["content"][0]["toolResult"]
    assert result["toolUseId"] == "t9" and result["status"] == "error"


def test_a_converse_transcript_holds_turns_until_every_call_of_a_round_is_answered() -> None:
    transcript = ConverseTranscript()
    transcript.add_turn("user", "[Alice]: look it up")
    transcript.add_tool_use("t1", "search", {"q": "a"})
    transcript.add_tool_use("t2", "search", {"q": "b"})
    transcript.add_tool_result("t2", "search", "B", is_error=False)  # out of call order
    transcript.add_turn("user", "[Bob]: any news?")  # held: t1 is still open
    assert transcript.in_tool_exchange
    transcript.add_tool_result("t1", "search", "boom", is_error=True)
    assert not transcript.in_tool_exchange
    transcript.add_turn("assistant", "Found B.")

    messages = transcript.build()
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert [b["toolUse"]["toolUseId"] for b in messages[1]["content"]] == ["t1", "t2"]
    results = [b["toolResult"] for b in messages[2]["content"][:2]]
    assert [(r["toolUseId"], r["status"]) for r in results] == [("t1", "error"), ("t2", "success")]
    assert messages[2]["content"][2] == {"text": "[Bob]: any news?"}


def test_a_converse_result_without_its_call_gets_one_and_an_open_call_an_error() -> None:
    transcript = ConverseTranscript()
    transcript.add_tool_result("t5", "lookup", "ok", is_error=False)  # its call never arrived
    transcript.add_tool_use("t6", "lookup", {})  # never answered
    messages = transcript.build()
    assert messages[0]["content"] == [
        {"toolUse": {"toolUseId": "t5", "name": "lookup", "input": {}}}
    ]
    assert messages[1]["content"][0]["toolResult"]["status"] == "success"
    assert messages[3]["content"][0]["toolResult"]["toolUseId"] == "t6"
    assert messages[3]["content"][0]["toolResult"]["status"] == "error"


async def test_a_native_strands_tool_declared_to_act_settles_the_turn(
    base_url: str, fake: FakeModel
) -> None:
    @strands.tool
    @declares_turn_effect(TurnEffect.ACT)
    def open_ticket(summary: str) -> str:
        """Open a support ticket."""
        return f"ticket opened: {summary}"

    fake.call_tool("open_ticket", {"summary": "printer on fire"}).reply("")
    tools = room_tools()
    await turn(adapter(base_url, additional_tools=[open_ticket]), tools, "help")
    assert tools.turn.complete and not tools.messages_sent
    assert "ticket opened: printer on fire" in json.dumps(fake.requests[1].body)


async def test_a_successful_no_reply_ends_the_loop(base_url: str, fake: FakeModel) -> None:
    fake.call_tool("band_no_reply", {"reason": "nothing to add"})
    tools = room_tools()
    await turn(adapter(base_url), tools, "ok, thanks")
    assert len(fake.requests) == 1
    assert tools.turn.complete and not tools.messages_sent


def test_exactly_one_of_model_and_llm(base_url: str) -> None:
    with pytest.raises(ValueError, match=r"exactly one of config\.model or llm"):
        StrandsAdapter()
    with pytest.raises(ValueError, match=r"exactly one of config\.model or llm"):
        adapter(base_url, config=StrandsAdapterConfig(model="us.anthropic.claude"))
    with pytest.raises(ValidationError):
        StrandsAdapterConfig(temperature=0.2)  # type: ignore[call-arg]


async def test_the_example_answers_a_mention(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "fake")
    monkeypatch.setenv("OPENAI_MODEL", "fake-model")
    tools = room_tools()
    await turn(load_example("strands_agent").build_adapter(), tools, "hello example")
    assert len(tools.chat) == 1 and "You said: hello example" in tools.chat[0]


async def test_the_scripted_strands_model_drives_the_adapter_offline() -> None:
    """band.testing.strands: a tool turn then a text turn, through Strands' own loop; an
    error turn fails the turn as a provider error would."""
    from band.testing.strands import ErrorTurn, ScriptedStrandsModel, TextTurn, ToolTurn

    model = ScriptedStrandsModel(
        [
            ToolTurn("band_send_message", {"content": "Hi Alice", "mentions": ["@alice"]}),
            TextTurn("sent"),
        ],
        input_tokens=3,
        output_tokens=2,
    )
    tools = room_tools()
    await turn(StrandsAdapter(llm=model), tools, "hello")
    assert [m["content"] for m in tools.messages_sent] == ["Hi Alice"]
    assert len(model.calls) == 2 and model.calls[0]["tool_specs"]

    failing = ScriptedStrandsModel([ErrorTurn(RuntimeError("provider down"))])
    with pytest.raises(Exception, match="provider down"):
        await turn(StrandsAdapter(llm=failing), room_tools(), "hello again")
