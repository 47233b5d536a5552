"""The seed page's code, unchanged, on our SDK: "Test the adapter" with FakeAgentTools."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from openai.types.chat import ChatCompletion

from band import Capability, Emit
from band.core import AgentInput, HistoryProvider
from band.core.exceptions import BandConfigError, TurnResultAlreadyReported
from band.core.types import PlatformMessage
from band.testing import MISSING_REPLY_FAILURE, FakeAgentTools, events_of_type, failure_reports

SEED_DIR = Path(__file__).resolve().parents[1] / "e2e" / "seed"
sys.path.insert(0, str(SEED_DIR))

from chat_adapter import ChatCompletionsAdapter, ChatHistoryConverter  # noqa: E402
from escalation import run_escalation  # noqa: E402
from framework_tools import band_tools_for_framework  # noqa: E402


def completion(content: str | None = None, tool_calls: list[dict[str, Any]] | None = None) -> Any:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": json.dumps(call["args"])},
            }
            for call in tool_calls
        ]
    return ChatCompletion.model_validate(
        {
            "id": "cmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "stub",
            "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        }
    )


class StubCompletions:
    def __init__(self, replies: list[Any]) -> None:
        self.replies = replies
        self.calls: list[dict[str, Any]] = []

    async def create(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return self.replies.pop(0)


class StubClient:
    """Just enough of AsyncOpenAI for the seed adapter: ``client.chat.completions.create``."""

    def __init__(self, *replies: Any) -> None:
        self.completions = StubCompletions(list(replies))
        self.chat = self


def message(content: str = "@echo what is 2+2?") -> PlatformMessage:
    return PlatformMessage(
        id="m1",
        room_id="room-fake",
        content=content,
        sender_id="user-1",
        sender_type="User",
        sender_name="Alice",
        message_type="text",
        metadata={},
        created_at=datetime.now(UTC),
    )


PARTICIPANTS = [
    {"id": "user-1", "name": "Alice", "type": "User", "handle": "alice"},
    {"id": "agent-fake", "name": "Echo", "type": "Agent", "handle": "alice/echo"},
]


@pytest.fixture
def tools() -> Iterator[FakeAgentTools]:
    yield FakeAgentTools(participants=PARTICIPANTS)


async def started(client: StubClient, **features: Any) -> ChatCompletionsAdapter:
    adapter = ChatCompletionsAdapter(client=client, **features)  # type: ignore[arg-type]
    await adapter.on_started("Echo", "A helpful test agent")
    return adapter


def agent_input(tools: FakeAgentTools, raw: list[dict[str, Any]] | None = None) -> AgentInput:
    return AgentInput(
        msg=message(),
        tools=tools,
        history=HistoryProvider(raw or []),
        participants_msg="## Current Participants\n- @alice — Alice (User)",
        contacts_msg=None,
        is_session_bootstrap=True,
        room_id="room-fake",
    )


async def test_plain_answer_is_relayed_to_the_sender(tools: FakeAgentTools) -> None:
    client = StubClient(completion("4"))
    adapter = await started(client)
    await adapter.on_event(agent_input(tools))
    assert tools.messages_sent == [{"id": "msg-1", "content": "4", "mentions": ["user-1"]}]
    assert tools.turn.replied
    sent = client.completions.calls[0]
    assert sent["messages"][0]["role"] == "system"
    assert sent["messages"][0]["content"].startswith("You are Echo, A helpful test agent.")
    # the adapter keeps appending to the same list: system, roster update, message, answer
    assert sent["messages"][-2] == {"role": "user", "content": "[Alice]: @echo what is 2+2?"}
    assert sent["messages"][1]["content"].startswith("[System]: ## Current Participants")
    assert [s["function"]["name"] for s in sent["tools"]][:3] == [
        "band_send_message",
        "band_send_event",
        "band_no_reply",
    ]


async def test_send_message_tool_call_posts_events_and_suppresses_relay(
    tools: FakeAgentTools,
) -> None:
    call = {
        "id": "call-1",
        "name": "band_send_message",
        "args": {"content": "4", "mentions": ["alice"]},
    }
    client = StubClient(completion(None, [call]), completion("Done, I told Alice."))
    adapter = await started(client)
    await adapter.on_event(agent_input(tools))
    assert tools.chat == ["4"]
    assert tools.messages_sent[0]["mentions"] == ["alice"]
    assert tools.platform.posted_messages[0]["mentions"] == [{"id": "user-1", "handle": "alice"}]
    calls = [json.loads(e["content"]) for e in events_of_type(tools, "tool_call")]
    results = [json.loads(e["content"]) for e in events_of_type(tools, "tool_result")]
    assert calls == [{"name": "band_send_message", "args": call["args"], "tool_call_id": "call-1"}]
    assert results[0]["name"] == "band_send_message"
    assert json.loads(results[0]["output"])["id"] == "msg-1"
    assert tools.tool_calls == [{"tool_name": "band_send_message", "arguments": call["args"]}]


async def test_missing_mentions_reach_the_model_as_error_text(tools: FakeAgentTools) -> None:
    call = {"id": "c1", "name": "band_send_message", "args": {"content": "hi", "mentions": []}}
    client = StubClient(completion(None, [call]), completion("hello"))
    adapter = await started(client, emit=())
    await adapter.on_event(agent_input(tools))
    tool_reply = client.completions.calls[1]["messages"][-2]
    assert tool_reply["role"] == "tool"
    assert tool_reply["content"] == (
        "Error: At least one mention is required. Available handles: ['alice']. "
        "Use participant handles from the list."
    )
    assert events_of_type(tools, "tool_call") == []  # emit=() turns reporting off
    assert tools.chat == ["hello"]


async def test_empty_answer_reports_missing_reply(tools: FakeAgentTools) -> None:
    adapter = await started(StubClient(completion("")))
    with pytest.raises(TurnResultAlreadyReported):
        await adapter.on_event(agent_input(tools))
    assert failure_reports(tools) == [MISSING_REPLY_FAILURE]
    assert tools.messages_sent == []


async def test_bootstrap_history_is_converted() -> None:
    converter = ChatHistoryConverter()
    converter.set_agent_name("Echo")
    raw = [
        {"role": "user", "content": "hi", "sender_name": "Alice", "sender_type": "User",
         "message_type": "text", "metadata": {}},
        {"role": "assistant", "content": "hello", "sender_name": "Echo", "sender_type": "Agent",
         "message_type": "text", "metadata": {}},
        {"role": "assistant", "content": "{}", "sender_name": "Echo", "sender_type": "Agent",
         "message_type": "tool_call", "metadata": {}},
    ]  # fmt: skip
    assert converter.convert(raw) == [
        {"role": "user", "content": "[Alice]: hi"},
        {"role": "assistant", "content": "hello"},
    ]


async def test_features_of_the_seed_adapter() -> None:
    adapter = ChatCompletionsAdapter(client=StubClient())  # type: ignore[arg-type]
    assert adapter.features.emit == frozenset({Emit.TOOL_CALLS})
    assert adapter.features.capabilities == frozenset()
    with pytest.raises(BandConfigError) as info:
        ChatCompletionsAdapter(client=StubClient(), emit={Emit.THOUGHTS})  # type: ignore[arg-type]
    assert str(info.value) == (
        "ChatCompletionsAdapter does not support emit kind(s): thoughts; supported: tool_calls"
    )
    with pytest.raises(BandConfigError, match="capability/-ies: memory; supported: contacts"):
        ChatCompletionsAdapter(client=StubClient(), capabilities=[Capability.MEMORY])  # type: ignore[arg-type]


async def test_framework_tool_wrapper_routes_back_to_band(tools: FakeAgentTools) -> None:
    wrapped = band_tools_for_framework(tools, frozenset({Capability.CONTACTS}))
    names = [w["name"] for w in wrapped]
    assert names[0] == "band_send_message" and "band_list_contacts" in names
    send = wrapped[0]["call"]
    result = await send(content="hi there", mentions=["alice"])
    assert result["id"] == "msg-1"
    assert tools.chat == ["hi there"]
    assert tools.turn.replied


async def test_custom_tool_snippet_records_act(tools: FakeAgentTools) -> None:
    text = await run_escalation(tools, {"reason": "server down"})
    assert text == "Escalated to the on-call person: server down"
    assert tools.turn.complete and not tools.turn.replied
