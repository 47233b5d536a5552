"""``room_emitter``: one ACP turn's chunks posted to the room as they come, per emit kind;
the held text a thought only when nothing replied; the resume event always; nothing after
a failed turn; tool effects recorded only once the turn closes cleanly."""

from __future__ import annotations

import json

import pytest

from band.core.types import Emit
from band.integrations.acp.room_emitter import ACP_SESSION_CLOSED_EVENT, RoomTurnEmitter
from band.integrations.acp.types import (
    ACPToolCall,
    ACPToolResult,
    ChunkType,
    CollectedChunk,
    ToolStatus,
)
from band.runtime.tools import turn_effect
from band.testing import FakeAgentTools

CALL = ACPToolCall("c1", "band_send_message", {"content": "hi"})


def turn_chunks() -> list[CollectedChunk]:
    done = {"tool_call_id": "c1", "status": ToolStatus.COMPLETED}
    return [
        CollectedChunk(ChunkType.THOUGHT, "thinking"),
        CollectedChunk(ChunkType.TOOL_CALL, CALL.name, dict(done), tool=CALL),
        CollectedChunk(
            ChunkType.TOOL_RESULT,
            "sent",
            dict(done),
            tool=ACPToolResult(CALL, "sent", ToolStatus.COMPLETED),
        ),
        CollectedChunk(ChunkType.PLAN, "- reply"),
        CollectedChunk(ChunkType.TEXT, "Hello"),
        CollectedChunk(ChunkType.TEXT, "again"),
    ]


def kinds(tools: FakeAgentTools) -> list[tuple[str, str]]:
    return [(e["message_type"], e["content"]) for e in tools.events_sent]


async def test_a_clean_turn_posts_its_narration_then_the_held_text_then_the_resume_event() -> None:
    tools = FakeAgentTools()
    async with RoomTurnEmitter(tools, session_id="s-1", room_id="r-1") as emitter:
        for chunk in turn_chunks():
            await emitter.emit(chunk)
        assert emitter.held_text == "Hello\n\nagain"
    posted = kinds(tools)
    assert [k for k, _ in posted] == [
        "thought",
        "tool_call",
        "tool_result",
        "task",
        "thought",
        "task",
    ]
    assert json.loads(posted[1][1]) == {
        "name": "band_send_message",
        "args": {"content": "hi"},
        "tool_call_id": "c1",
    }
    assert json.loads(posted[2][1])["output"] == "sent"
    assert posted[4] == ("thought", "Hello\n\nagain")
    assert posted[5][1] == ACP_SESSION_CLOSED_EVENT
    assert tools.events_sent[-1]["metadata"] == {
        "acp_client_session_id": "s-1",
        "acp_client_room_id": "r-1",
    }


async def test_the_emit_set_narrows_narration_but_never_the_resume_event() -> None:
    tools = FakeAgentTools()
    async with RoomTurnEmitter(
        tools, session_id="s", room_id="r", emit=frozenset({Emit.TASK_EVENTS})
    ) as emitter:
        for chunk in turn_chunks():
            await emitter.emit(chunk)
        await emitter.open_permission(call=CALL, session_id="s", outcome="cancelled")
    assert kinds(tools) == [("task", "- reply"), ("task", ACP_SESSION_CLOSED_EVENT)]


async def test_held_text_is_not_posted_when_the_turn_replied() -> None:
    tools = FakeAgentTools()
    async with RoomTurnEmitter(tools, session_id="s", room_id="r") as emitter:
        tools.turn.record(turn_effect("band_send_message"))  # a Band tool replied
        await emitter.emit(CollectedChunk(ChunkType.TEXT, "done"))
    assert kinds(tools) == [("task", ACP_SESSION_CLOSED_EVENT)]


async def test_a_failed_turn_posts_nothing_at_close_and_records_no_effects() -> None:
    tools = FakeAgentTools()
    with pytest.raises(RuntimeError, match="agent died"):
        async with RoomTurnEmitter(
            tools, session_id="s", room_id="r", records_tool_effects=True
        ) as emitter:
            for chunk in turn_chunks()[4:]:
                await emitter.emit(chunk)
            await emitter.emit(turn_chunks()[1])
            raise RuntimeError("agent died")
    assert tools.events_sent[-1]["message_type"] == "tool_call" and not tools.turn.replied


async def test_tool_effects_of_out_of_process_tools_are_recorded_on_a_clean_close() -> None:
    tools = FakeAgentTools()
    async with RoomTurnEmitter(
        tools, session_id="s", room_id="r", records_tool_effects=True
    ) as emitter:
        await emitter.emit(turn_chunks()[1])
        assert not tools.turn.replied  # staged, not yet recorded
    assert tools.turn.replied
    assert [k for k, _ in kinds(tools)] == ["tool_call", "task"]  # replied: no closing thought


async def test_a_refused_permission_is_shown_as_a_failed_call() -> None:
    tools = FakeAgentTools()
    emitter = RoomTurnEmitter(tools, session_id="s", room_id="r")
    await emitter.open_permission(call=CALL, session_id="s", outcome="cancelled")
    call, failed = tools.events_sent
    assert (
        call["metadata"]["permission_request"] is True and call["metadata"]["acp_session_id"] == "s"
    )
    assert json.loads(failed["content"]) == {
        "name": "band_send_message",
        "output": "Permission cancelled",
        "tool_call_id": "c1",
        "is_error": True,
    }
    assert failed["metadata"]["permission_outcome"] == "cancelled"
    with pytest.raises(RuntimeError, match="no tool call"):
        await emitter.emit(CollectedChunk(ChunkType.TOOL_CALL, "x"))


async def test_held_text_can_be_posted_early_as_commentary() -> None:
    tools = FakeAgentTools()
    async with RoomTurnEmitter(tools, session_id="s", room_id="r") as emitter:
        await emitter.emit(CollectedChunk(ChunkType.TEXT, "Let me look."))
        await emitter.post_held_text()
        await emitter.emit(CollectedChunk(ChunkType.TEXT, "Found it."))
    assert kinds(tools) == [
        ("thought", "Let me look."),
        ("thought", "Found it."),
        ("task", ACP_SESSION_CLOSED_EVENT),
    ]
