"""FakeAgentTools: what it records, its helpers, and that it satisfies the tools protocol."""

from __future__ import annotations

import asyncio

import pytest

from band.core import AgentToolsProtocol, HistoryConverter
from band.runtime.tools import TurnEffect
from band.testing import FakeAgentTools, events_of_type, failure_reports, reported_failures
from band_sdk_core import AgentFailure

ALICE = [{"id": "u1", "name": "Alice", "type": "User", "handle": "alice"}]


def test_fake_satisfies_the_protocols() -> None:
    assert isinstance(FakeAgentTools(), AgentToolsProtocol)

    class Converter:
        def convert(self, raw: list[dict[str, object]]) -> list[str]:
            return []

    assert isinstance(Converter(), HistoryConverter)


async def test_records_messages_from_tool_calls_with_mentions_as_passed() -> None:
    tools = FakeAgentTools(participants=ALICE)
    args = {"content": "hi", "mentions": ["@alice", "stranger"]}
    await tools.execute_tool_call("band_send_message", args)
    assert tools.messages_sent == [{"id": "msg-1", "content": "hi", "mentions": args["mentions"]}]
    assert tools.tool_calls == [{"tool_name": "band_send_message", "arguments": args}]
    assert tools.turn.effects == (TurnEffect.REPLY,)
    tools.assert_message_sent(content="hi", count=1)


async def test_records_events_and_failures() -> None:
    tools = FakeAgentTools()
    await tools.send_event("step 1", "thought")
    await tools.send_failure(AgentFailure("openai", "quota exceeded"))
    assert tools.events_sent[0] == {
        "id": "evt-1",
        "content": "step 1",
        "message_type": "thought",
        "metadata": {},
    }
    assert [e["id"] for e in events_of_type(tools, "error")] == ["evt-2"]
    assert failure_reports(tools) == [("openai", "quota exceeded")]
    assert reported_failures(tools)[0]["code"] is None
    assert tools.failures_sent[0].provider == "openai"
    tools.assert_event_sent(message_type="thought", count=1)


async def test_injected_errors_and_until_said() -> None:
    tools = FakeAgentTools(participants=ALICE)
    tools.send_message_error = RuntimeError("down")
    with pytest.raises(RuntimeError):
        await tools.send_message("x", mentions=["alice"])
    tools.send_message_error = None

    async def later() -> None:
        await asyncio.sleep(0.01)
        await tools.send_message("eventually", mentions=["alice"])

    task = asyncio.create_task(later())
    async with asyncio.timeout(2):
        await tools.until_said("eventually")
    await task


async def test_room_context_and_contacts() -> None:
    tools = FakeAgentTools(
        room_context=[{"id": "m1", "content": "old"}],
        received_contact_requests=[{"id": "rq1", "from_handle": "bob", "status": "pending"}],
    )
    page = await tools.fetch_room_context(page=1, page_size=10)
    assert page["data"] == [{"id": "m1", "content": "old"}]
    assert tools.context_calls == [{"room_id": "room-fake", "page": 1, "page_size": 10}]
    answer = await tools.execute_tool_call(
        "band_respond_contact_request", {"action": "approve", "handle": "bob"}
    )
    assert answer == {"id": "rq1", "status": "approved"}
    assert tools.turn.effects == (TurnEffect.ACT,)
