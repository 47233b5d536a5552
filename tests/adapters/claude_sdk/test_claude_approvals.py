"""The room deciding Claude's tool calls: ``PendingApproval`` while it waits, the member's
``ApprovalReply``, what Claude is told, and the commands the adapter answers itself.

No Claude CLI here: ``ClaudeSDKAdapter.ask_room`` is what the SDK's ``can_use_tool``
callback runs, driven directly; the room is ``FakeAgentTools``.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from band.adapters._coding.approvals import Decision
from band.adapters._coding.commands import RoomCommand, parse_command
from band.adapters._coding.events import Reporter
from band.adapters.claude_sdk import (
    ApprovalReply,
    ClaudeApprovalOptions,
    ClaudeSDKAdapter,
    ClaudeSDKAdapterConfig,
    ClaudeSDKCommand,
    PendingApproval,
)
from band.adapters.claude_sdk.approvals import denial, pending_lines, reply_of
from band.testing import FakeAgentTools

pytestmark = pytest.mark.timeout(30)
ROOM = "room-1"
ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}
BOB = {"id": "user-bob", "name": "Bob", "handle": "bob", "type": "User"}


def adapter(**approvals: Any) -> ClaudeSDKAdapter:
    options = ClaudeApprovalOptions(**{"mode": "manual", **approvals})
    return ClaudeSDKAdapter(ClaudeSDKAdapterConfig(approvals=options))


def room_tools() -> FakeAgentTools:
    return FakeAgentTools(room_id=ROOM, participants=[ALICE, BOB])


def prompt_for(claude: ClaudeSDKAdapter, tools: FakeAgentTools) -> Any:
    return SimpleNamespace(
        room_id=ROOM,
        msg=SimpleNamespace(sender_id=ALICE["id"], sender_name=ALICE["name"]),
        reporter=Reporter(claude, tools, ["alice"]),
        turn=SimpleNamespace(release=lambda: None),
    )


async def waiting(claude: ClaudeSDKAdapter) -> PendingApproval:
    for _ in range(200):
        if claude.pending_approvals.get(ROOM) and claude.relay.pending(ROOM):
            return claude.pending_approvals[ROOM][0]
        await asyncio.sleep(0.01)
    raise AssertionError("no approval is pending")


def ask(claude: ClaudeSDKAdapter, tools: FakeAgentTools) -> asyncio.Task[tuple[bool, str]]:
    args = {"command": "rm -rf build", "description": "clean"}
    return asyncio.create_task(claude.ask_room(ROOM, prompt_for(claude, tools), "Bash", args))


async def answer(claude: ClaudeSDKAdapter, word: str, sender: dict[str, str]) -> None:
    token = claude.relay.pending(ROOM)[0]
    command = RoomCommand(word, (token,))
    await claude.relay.answer(ROOM, room_tools(), command, ["bob"], sender_id=sender["id"])


async def test_a_tool_call_waits_as_a_pending_approval_until_a_member_answers() -> None:
    claude, tools = adapter(), room_tools()
    asking = ask(claude, tools)
    pending = await waiting(claude)

    assert (pending.tool_name, pending.summary) == ("Bash", "rm -rf build")
    assert pending.tool_input == {"command": "rm -rf build", "description": "clean"}
    assert pending.requester == {"id": "user-alice", "name": "Alice"}
    assert not pending.future.done()
    await answer(claude, "decline", BOB)

    assert pending.future.result() == ApprovalReply("decline", "user-bob")
    assert await asyncio.wait_for(asking, 5) == (
        False,
        "A room member (user-bob) declined this tool call; it was not run.",
    )
    assert claude.pending_approvals[ROOM] == []

    approving = ask(claude, tools)
    accepted = await waiting(claude)
    await answer(claude, "approve-session", BOB)
    assert await asyncio.wait_for(approving, 5) == (True, "")
    assert accepted.future.result() == ApprovalReply("accept", "user-bob")


async def test_no_answer_in_time_leaves_no_reply_and_claude_is_told_so() -> None:
    claude = adapter(wait_timeout_s=0.2)
    asking = ask(claude, room_tools())
    pending = await waiting(claude)

    allowed, told = await asyncio.wait_for(asking, 5)
    assert (allowed, pending.future.result()) == (False, None)
    assert told == "Nobody in the room approved this tool call in time; it was not run."


async def test_leaving_the_room_settles_what_waits_without_a_reply() -> None:
    claude = adapter()
    asking = ask(claude, room_tools())
    pending = await waiting(claude)
    claude.relay.forget(ROOM)
    await claude.forget_room(ROOM)

    assert await asyncio.wait_for(asking, 5) == (False, denial(None))
    assert pending.future.result() is None and ROOM not in claude.pending_approvals


async def test_approvals_lists_the_waiting_tool_calls_with_who_asked() -> None:
    claude, tools = adapter(), room_tools()
    asking = ask(claude, tools)
    await waiting(claude)
    reporter = Reporter(claude, tools, ["alice"])
    command = parse_command("/approvals")
    assert command is not None

    assert await claude._command(command, ROOM, tools, reporter, sender_id=BOB["id"])
    notice = tools.notices_sent[-1]["content"]
    assert "Claude's tool calls waiting (1):" in notice
    assert "- `Bash`: `rm -rf build` (for Alice, waiting 0 s)" in notice
    assert "`/approve <id>` or `/decline <id>`" in notice
    await answer(claude, "approve", BOB)
    assert await asyncio.wait_for(asking, 5) == (True, "")


async def test_every_local_command_is_answered_in_the_room_not_sent_to_claude() -> None:
    claude, tools = adapter(), room_tools()
    reporter = Reporter(claude, tools, ["alice"])
    for word in ClaudeSDKCommand:
        command = parse_command(f"/{word}")
        assert command is not None and command.name == word
        assert await claude._command(command, ROOM, tools, reporter, sender_id=BOB["id"])
    assert set(ClaudeSDKCommand) == {"approve", "decline", "approvals", "status"}


def test_replies_lines_and_denials_say_what_happened() -> None:
    asked = datetime(2026, 1, 1, tzinfo=UTC)
    loop = asyncio.new_event_loop()
    try:
        pending = PendingApproval(
            "Write", {"file_path": "a.txt"}, "a.txt", asked, loop.create_future(), {"id": "u-1"}
        )
        pending.answer(ApprovalReply("accept", "u-2"))
        pending.answer(None)  # a second settlement changes nothing
        assert pending.future.result() == ApprovalReply("accept", "u-2")
    finally:
        loop.close()

    assert reply_of(Decision.ACCEPT_SESSION, "u-2") == ApprovalReply("accept", "u-2")
    assert reply_of(Decision.DECLINE, None) == ApprovalReply("decline", "")
    assert pending.line(asked + timedelta(seconds=42)) == (
        "- `Write`: `a.txt` (for u-1, waiting 42 s)"
    )
    assert pending_lines([]) == []
    assert denial(ApprovalReply("decline", "")) == (
        "A room member declined this tool call; it was not run."
    )
