"""A room's Codex records at work: ``NativeTurn`` routing, ``PendingApproval`` answered under
the request's own id, and ``RoomCodexClient`` across a process.

The process tests run ``CodexProcess`` on the scripted JSON-RPC peer (``jsonrpc_peer.py``),
whose ``ask`` sends a request of its own and answers with what our side responded to it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from band.adapters._coding.commands import RoomCommand
from band.adapters._coding.events import Reporter
from band.adapters.codex import (
    CodexAdapter,
    CodexAdapterConfig,
    NativeTurn,
    PendingApproval,
    RoomCodexClient,
    ThreadSettings,
)
from band.adapters.codex.approvals import native_approval_key
from band.adapters.codex.native import undelivered
from band.adapters.codex.process import UNOWNED_TOOL_CALL, CodexProcess
from band.adapters.codex.room import tools_digest
from band.adapters.codex.rpc import TransportClosed
from band.adapters.codex.turn import CodexTurnRun
from band.integrations.codex.rpc_base import RpcEvent
from band.testing import FakeAgentTools

pytestmark = pytest.mark.timeout(30)
PEER = Path(__file__).with_name("jsonrpc_peer.py")
ROOM = "room-1"
APPROVAL = "item/commandExecution/requestApproval"
ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}


def event(method: str, ident: str | None = None, **params: Any) -> RpcEvent:
    kind = "request" if ident is not None else "notification"
    return RpcEvent(kind, method, params, ident, {})


def native(**fields: Any) -> NativeTurn:
    return NativeTurn(SimpleNamespace(), 1, **fields)  # type: ignore[arg-type]


def queued(turn: NativeTurn) -> list[Any]:
    return [turn.events.get_nowait() for _ in range(turn.events.qsize())]


async def test_a_native_turn_owns_what_names_its_turn_and_nothing_of_another() -> None:
    turn = native(thread_id="th", turn_id="t1")
    mine = event("item/started", turnId="t1", threadId="th")
    completed = event("turn/completed", turn={"id": "t1", "status": "completed"})
    other = event("item/started", turnId="t0", threadId="th")
    other_request = event(APPROVAL, "r0", turnId="t0", threadId="th")

    assert turn.claim(mine) and turn.claim(completed)
    assert not turn.claim(other) and not turn.claim(other_request)
    assert queued(turn) == [mine, completed]


async def test_a_sub_agents_request_waits_until_the_turn_names_its_thread() -> None:
    turn = native(thread_id="th", turn_id="t1")
    asked = event(APPROVAL, "r1", threadId="sub", turnId="s1")
    sub_done = event("turn/completed", threadId="sub", turn={"id": "s1"})
    spawn = event(
        "item/started",
        turnId="t1",
        item={"type": "collabAgentToolCall", "receiverThreadIds": ["sub"]},
    )

    assert turn.claim(asked) and queued(turn) == [] and turn.unattributed == [asked]
    assert turn.claim(spawn)
    assert turn.sub_agents == {"sub"} and turn.unattributed == []
    assert queued(turn) == [spawn, asked]
    assert not turn.claim(sub_done)  # a sub-agent's own completion never ends this turn


async def test_what_a_turn_leaves_is_listed_and_a_loss_is_queued_last() -> None:
    turn = native(thread_id="th", turn_id="t1")
    early = event("item/started", turnId="t1")
    turn.early.append(early)
    held = event(APPROVAL, "r2", threadId="sub")
    turn.claim(held)
    turn.claim(event(APPROVAL, "r3", turnId="t1"))
    leftovers = undelivered(turn)

    assert [e.id for e in leftovers] == [None, "r3", "r2"]
    closed = event("transport/closed", reason="exited")
    turn.lose(closed)
    assert turn.lost and turn.loss is closed and queued(turn) == [closed]


async def test_a_pending_approval_names_what_codex_asks_about_and_settles_once() -> None:
    loop = asyncio.get_running_loop()
    room = RoomCodexClient(ROOM, "/w")

    def pending(request_id: str, key: str) -> PendingApproval:
        return PendingApproval(
            request_id, APPROVAL, "ls", datetime.now(UTC), loop.create_future(), "binary:ls", key
        )

    first, again = pending("r1", "item-1"), pending("r2", "item-1")
    room.register_approval(first)
    room.register_approval(again)  # Codex asked again about the same item

    assert first.future.result() == "decline" and not again.future.done()
    assert room.approvals == {"item-1": again}
    assert again.decide("accept") and not again.decide("decline")
    assert again.response() == {"decision": "accept"}
    assert native_approval_key("r9", {"itemId": "item-9", "callId": "c"}) == "item-9"
    assert native_approval_key("r9", {"approvalId": "a-1", "itemId": "item-9"}) == "a-1"
    assert native_approval_key(7, {}) == "req-7"
    third = pending("r3", "item-3")
    room.register_approval(third)
    room.decline_approvals()
    assert third.future.result() == "decline" and room.approvals == {}


async def test_a_room_records_what_its_thread_was_started_with() -> None:
    room = RoomCodexClient(ROOM, "/w", selected_model="gpt-x")
    specs = [{"name": "band_send_message", "description": "", "inputSchema": {}}]
    room.thread_id, room.restored = "th-1", True
    room.bind_thread(registration=specs, settings=ThreadSettings("fake", "/w"))

    assert (room.registration, room.restored) == (specs, False)
    assert room.tools_digest == tools_digest(specs)
    assert room.tool_names == ("band_send_message",)
    room.forget_thread()
    assert (room.thread_id, room.registration, room.tool_names) == (None, None, ())
    assert room.settings == ThreadSettings() and room.selected_model == "gpt-x"
    with pytest.raises(TransportClosed, match="has no Codex process"):
        room.require_client()


async def start(room: RoomCodexClient) -> CodexProcess:
    proc = CodexProcess(room)
    await proc.start([sys.executable, str(PEER)], dict(os.environ))
    return proc


async def test_work_no_turn_started_is_refused_and_the_room_holds_the_client(
    tmp_path: Path,
) -> None:
    room = RoomCodexClient(ROOM, str(tmp_path))
    proc = await start(room)
    try:
        assert room.client is proc.channel.client and room.reader is proc.channel.reader
        tool = await proc.channel.request("ask", {})
        approval = await proc.channel.request(
            "ask", {"id": "srv-2", "method": APPROVAL, "params": {"turnId": "t9"}}
        )
        other = await proc.channel.request("ask", {"id": "srv-3", "method": "x/unknown"})
    finally:
        await proc.close()

    assert tool == {
        "answer": {
            "contentItems": [{"type": "inputText", "text": UNOWNED_TOOL_CALL}],
            "success": False,
        }
    }
    assert approval == {"answer": {"decision": "decline"}}
    assert other["answer"]["code"] == -32601
    assert (room.client, room.reader) == (None, None)
    assert proc.generation == room.generation == 1


def turn_on(adapter: CodexAdapter, room: RoomCodexClient, proc: CodexProcess) -> CodexTurnRun:
    tools = FakeAgentTools(room_id=ROOM, participants=[ALICE])
    reporter = Reporter(adapter, tools, ["alice"])
    prompt: Any = SimpleNamespace(
        room_id=ROOM, reporter=reporter, tools=tools, turn=SimpleNamespace(release=lambda: None)
    )
    room.turn = NativeTurn(proc.channel.client, proc.generation, "th", "t1")
    return CodexTurnRun(adapter, prompt, room, room.turn)


async def until(check: Any) -> None:
    for _ in range(200):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("condition not met")


async def test_an_approval_is_answered_to_the_request_that_asked(tmp_path: Path) -> None:
    adapter = CodexAdapter(
        CodexAdapterConfig(codex_command=["codex-not-started"]),
        workspace_for_room=lambda room: str(tmp_path / room),
    )
    room = adapter.room(ROOM)
    proc = await start(room)
    turn = turn_on(adapter, room, proc)
    consuming = asyncio.create_task(turn.consume())
    asked = {"threadId": "th", "turnId": "t1", "itemId": "item-1", "command": "ls -1"}
    try:
        first = asyncio.create_task(
            proc.channel.request("ask", {"id": "srv-7", "method": APPROVAL, "params": asked})
        )
        await until(lambda: "item-1" in room.approvals)
        assert room.approvals["item-1"].request_id == "srv-7"
        # Codex asks again about the same item: the first request is declined, the second waits.
        second = asyncio.create_task(
            proc.channel.request("ask", {"id": "srv-8", "method": APPROVAL, "params": asked})
        )
        assert await asyncio.wait_for(first, 10) == {"answer": {"decision": "decline"}}
        await until(lambda: room.approvals["item-1"].request_id == "srv-8")
        await until(lambda: len(adapter.relay.pending(ROOM)) == 1)
        token = adapter.relay.pending(ROOM)[0]
        answering = FakeAgentTools(room_id=ROOM, participants=[ALICE])
        await adapter.relay.answer(ROOM, answering, RoomCommand("approve", (token,)), ["alice"])
        assert await asyncio.wait_for(second, 10) == {"answer": {"decision": "accept"}}
        assert room.approvals == {} and turn.awaiting_approval == 0
        # The process goes while an approval waits: it is declined and the turn fails.
        third = asyncio.create_task(
            proc.channel.request("ask", {"id": "srv-9", "method": APPROVAL, "params": asked})
        )
        await until(lambda: "item-1" in room.approvals)
        waiting = room.approvals["item-1"]
        await proc.close()
        with pytest.raises(TransportClosed):
            await third
        with pytest.raises(TransportClosed, match="went away"):
            await asyncio.wait_for(turn.done, 10)
        assert waiting.future.result() == "decline" and room.approvals == {}
    finally:
        consuming.cancel()
        await turn.close()
        await proc.close()
