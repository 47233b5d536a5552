"""band-sdk's knobs of the coding adapters: who may answer approvals, how many wait, settling."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from band.adapters._coding.approvals import ApprovalRelay, ApprovalRequest, Decision
from band.adapters._coding.commands import RoomCommand
from band.adapters._coding.events import Reporter
from band.adapters.claude_sdk import ClaudeApprovalOptions, ClaudeSDKAdapter, ClaudeSDKAdapterConfig
from band.adapters.cursor_acp import CursorACPAdapterConfig
from band.integrations.claude_sdk.dedup_tools import DedupingAgentTools
from band.testing import FakeAgentTools

ROOM = "room-1"


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_only_authorized_senders_answer_and_the_oldest_over_the_limit_is_declined() -> None:
    config = CursorACPAdapterConfig(
        decision_authorized_senders=frozenset({"alice"}), max_pending_decisions=1
    )
    relay = ApprovalRelay.from_config(config)
    tools = FakeAgentTools(room_id=ROOM)
    adapter: Any = SimpleNamespace(features=SimpleNamespace(emit=frozenset()))
    reporter = Reporter(adapter, tools, ["bob"])

    def ask(key: str) -> asyncio.Task[Decision]:
        request = ApprovalRequest("command", f"run {key}", session_key=key)
        return asyncio.create_task(relay.request(ROOM, reporter, request))

    first = ask("a")
    await settle()
    second = ask("b")
    await settle()
    assert first.result() is Decision.DECLINE  # over max_pending_decisions=1
    [token] = relay.pending(ROOM)

    approve = RoomCommand("approve", (token,))
    await relay.answer(ROOM, tools, approve, ["bob"], sender_id="bob")
    await settle()
    assert not second.done() and relay.pending(ROOM) == [token]
    assert "not allowed to answer approvals" in tools.notices_sent[-1]["content"]

    await relay.answer(ROOM, tools, approve, ["alice"], sender_id="alice")
    assert await second is Decision.ACCEPT


def test_claude_approval_options_reach_its_relay() -> None:
    approvals = ClaudeApprovalOptions(
        mode="manual", authorized_senders=frozenset({"alice"}), max_pending_per_room=3
    )
    adapter = ClaudeSDKAdapter(ClaudeSDKAdapterConfig(approvals=approvals))
    assert adapter.relay.authorized_senders == frozenset({"alice"})
    assert adapter.relay.max_pending == 3
    assert ClaudeApprovalOptions(mode="manual").max_pending_per_room == 50  # band-sdk's default


def test_claude_lets_a_running_turn_settle_for_band_sdks_grace_on_leave() -> None:
    assert ClaudeSDKAdapter().turn_settle_s == 10.0  # band-sdk's TURN_SETTLE_GRACE_S
    settle = ClaudeSDKAdapterConfig(turn_settle_timeout_s=2.5)
    assert ClaudeSDKAdapter(settle).turn_settle_s == 2.5
    assert ClaudeSDKAdapterConfig().custom_section is None


async def test_claude_posts_a_repeated_send_message_once_within_its_window() -> None:
    assert ClaudeSDKAdapterConfig().send_message_dedup_ttl_seconds == 30.0  # band-sdk's
    now = [0.0]
    tools = FakeAgentTools(room_id=ROOM)
    dedup = DedupingAgentTools(tools, clock=lambda: now[0])
    first = await dedup.send_message("Deployed.", ["alice"])
    again = await dedup.bound(tools).send_message("Deployed.", ["alice"])  # next turn, a retry
    older = await dedup.send_message("Deployed.", [{"id": "u-a", "handle": "alice"}])
    await dedup.send_message("Deployed.", ["bob"])  # other mentions: posted
    assert again == first == older
    assert [m["content"] for m in tools.messages_sent] == ["Deployed."] * 2
    assert dedup.bound(tools).room_id == ROOM  # every other tool is the turn's own

    now[0] = 30.0  # the window is over: the same send posts again
    await dedup.send_message("Deployed.", ["alice"])
    assert len(tools.messages_sent) == 3

    small = DedupingAgentTools(tools, max_entries=1, clock=lambda: now[0])
    await small.send_message("one", ["alice"])
    await small.send_message("two", ["alice"])  # "one" is forgotten: only the latest is kept
    await small.send_message("one", ["alice"])
    assert len(tools.messages_sent) == 6
