"""Claude's tool calls the room decides: the pending request, the reply, the local commands.

With ``approvals`` configured, each of Claude Code's own tool calls (Bash, Write, ...) waits
as a :class:`PendingApproval` of its room until a member answers (an :class:`ApprovalReply`
on its ``future``) or the approvals relay applies its timeout decision; ``None`` there means
nobody answered (a timeout, the pending limit, the room's end). ``/approvals`` lists what
waits, with who asked and since when. :class:`ClaudeSDKCommand` names the commands the
adapter answers in the room itself; they never reach Claude.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Literal

from band.adapters._coding.approvals import ApprovalRelay, ApprovalRequest, Decision

if TYPE_CHECKING:
    from band.adapters._coding.base import Prompt

__all__ = [
    "ApprovalDecision",
    "ApprovalReply",
    "ClaudeSDKCommand",
    "PendingApproval",
    "ask_room",
    "denial",
    "pending_lines",
    "reply_of",
]

ApprovalDecision = Literal["accept", "decline"]


class ClaudeSDKCommand(StrEnum):
    """The room commands answered by the adapter instead of sent to Claude."""

    APPROVE = "approve"
    DECLINE = "decline"
    APPROVALS = "approvals"
    STATUS = "status"


@dataclass(frozen=True)
class ApprovalReply:
    """A room member's ``/approve`` or ``/decline`` of one pending tool call."""

    decision: ApprovalDecision
    sender_id: str


def reply_of(decision: Decision, sender_id: str | None) -> ApprovalReply:
    """The relay's decision by ``sender_id`` as a reply (a session grant accepts)."""
    word: ApprovalDecision = "decline" if decision is Decision.DECLINE else "accept"
    return ApprovalReply(word, sender_id or "")


@dataclass
class PendingApproval:
    """One of Claude's tool calls waiting for the room; ``requester`` is the person whose
    message started the turn (``id`` and ``name``)."""

    tool_name: str
    tool_input: dict[str, Any]
    summary: str
    created_at: datetime
    future: asyncio.Future[ApprovalReply | None]
    requester: dict[str, str]

    def answer(self, reply: ApprovalReply | None) -> None:
        """Settle with ``reply`` (None: nobody answered); later answers change nothing."""
        if not self.future.done():
            self.future.set_result(reply)

    def line(self, now: datetime | None = None) -> str:
        """One line for ``/approvals``: the tool, what it would do, who asked, how long ago."""
        waited = ((now or datetime.now(UTC)) - self.created_at).total_seconds()
        who = self.requester.get("name") or self.requester.get("id") or "someone"
        return f"- `{self.tool_name}`: `{self.summary}` (for {who}, waiting {waited:.0f} s)"


def pending_lines(pending: list[PendingApproval], now: datetime | None = None) -> list[str]:
    """The ``/approvals`` lines of a room's waiting tool calls (none: no lines)."""
    if not pending:
        return []
    return [
        f"Claude's tool calls waiting ({len(pending)}):",
        *(p.line(now) for p in pending),
        f"Answer with `/{ClaudeSDKCommand.APPROVE} <id>` or `/{ClaudeSDKCommand.DECLINE} <id>`.",
    ]


def denial(reply: ApprovalReply | None) -> str:
    """What Claude is told when its tool call is not allowed."""
    if reply is None:
        return "Nobody in the room approved this tool call in time; it was not run."
    who = f" ({reply.sender_id})" if reply.sender_id else ""
    return f"A room member{who} declined this tool call; it was not run."


async def ask_room(
    relay: ApprovalRelay,
    waiting: list[PendingApproval],
    prompt: Prompt,
    tool: str,
    args: dict[str, Any],
    summary: str,
) -> tuple[bool, str]:
    """Ask the room (through ``relay``) about one tool call, kept in ``waiting`` meanwhile:
    allowed, else what Claude is told."""
    sender = prompt.msg
    pending = PendingApproval(
        tool_name=tool,
        tool_input=dict(args),
        summary=summary,
        created_at=datetime.now(UTC),
        future=asyncio.get_running_loop().create_future(),
        requester={"id": sender.sender_id, "name": sender.sender_name or ""},
    )
    waiting.append(pending)
    try:
        decision = await relay.request(
            prompt.room_id,
            prompt.reporter,
            ApprovalRequest(tool, summary, f"{tool}:{summary}"),
            on_wait=prompt.turn.release,
            on_answer=lambda chosen, by: pending.answer(reply_of(chosen, by)),
        )
    finally:
        pending.answer(None)  # no member answered: a timeout, the limit or the room's end
        if pending in waiting:
            waiting.remove(pending)
    if decision in (Decision.ACCEPT, Decision.ACCEPT_SESSION):
        return True, ""
    return False, denial(pending.future.result())
