"""The demo agents (OpenAIChatAdapter) answer through band_send_message with the offline model."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from band.adapters import OpenAIChatAdapter
from band.core.types import AgentInput, HistoryProvider, PlatformMessage
from band.testing import FakeAgentTools, FakeModel, events_of_type, openai_client

ALICE = {
    "id": "user-alice",
    "role": "owner",
    "status": "active",
    "type": "User",
    "name": "Alice",
    "handle": "alice",
}


def _message(content: str) -> PlatformMessage:
    return PlatformMessage(
        id="msg-1",
        room_id="room-fake",
        content=content,
        sender_id="user-alice",
        sender_type="User",
        sender_name="Alice",
        message_type="text",
        metadata={},
        created_at=datetime.now(UTC),
    )


async def _turn(adapter: OpenAIChatAdapter, tools: FakeAgentTools, content: str) -> None:
    await adapter.on_event(
        AgentInput(
            msg=_message(content),
            tools=tools,
            history=HistoryProvider(raw=[]),
            participants_msg="## Current Participants\n- @alice — Alice (User)",
            contacts_msg=None,
            is_session_bootstrap=True,
            room_id="room-fake",
        )
    )


async def test_offline_model_answers_through_band_send_message() -> None:
    fake = FakeModel()
    async with openai_client(fake) as client:
        adapter = OpenAIChatAdapter("demo-model", client=client)
        await adapter.on_started("Helper", "A friendly helper for the tests.")
        tools = FakeAgentTools(participants=[ALICE], agent_name="Helper")
        await _turn(adapter, tools, "@helper hello")
    (sent,) = tools.messages_sent
    assert sent["mentions"] == ["alice"]
    assert "Helper here" in sent["content"] and "You said: hello" in sent["content"]
    (call,) = events_of_type(tools, "tool_call")
    assert json.loads(call["content"])["name"] == "band_send_message"
    assert len(events_of_type(tools, "tool_result")) == 1
    assert tools.turn.replied
    first = fake.requests[0]
    assert first.model == "demo-model"
    assert "band_send_message" in first.tool_names
    assert first.system.startswith("You are Helper")
    assert len(fake.requests) == 2  # the reply, then the quiet end after the tool result


async def test_plain_text_answer_is_relayed_to_the_sender() -> None:
    fake = FakeModel().reply("Just text.")
    async with openai_client(fake) as client:
        adapter = OpenAIChatAdapter(client=client)
        await adapter.on_started("Helper", "A friendly helper for the tests.")
        tools = FakeAgentTools(participants=[ALICE], agent_name="Helper")
        await _turn(adapter, tools, "@helper hi")
    (sent,) = tools.messages_sent
    assert sent["content"] == "Just text."
    assert sent["mentions"] == ["user-alice"]
