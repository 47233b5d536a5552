"""Relaying a coding agent's approval requests to its room, shared by Codex and ACP.

``manual`` posts a notice with a short token; the room answers ``/approve <token>``,
``/decline <token>`` or ``/approve-session <token>`` (the last also accepts later requests
with the same session key). Without an answer in time the configured decision applies.
``auto_accept`` / ``auto_decline`` decide at once and, with ``text_notifications``, say so
in the room for each request. Every decision leaves a ``task`` event behind as an audit
trail (when TASK_EVENTS is on) and is kept (the latest few) for ``/permissions``.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from band.core.protocols import AgentToolsProtocol

from .commands import RoomCommand
from .events import Reporter

__all__ = [
    "ApprovalMode",
    "ApprovalModeName",
    "ApprovalRelay",
    "ApprovalRequest",
    "AuditEntry",
    "Decision",
]

logger = logging.getLogger("band.adapters.approvals")


class ApprovalMode(StrEnum):
    MANUAL = "manual"
    AUTO_ACCEPT = "auto_accept"
    AUTO_DECLINE = "auto_decline"


# band-sdk spells the mode as this Literal (exported as ``ApprovalMode`` by the Cursor and
# OpenCode adapters); the configs take these strings, which are the enum's values.
ApprovalModeName = Literal["manual", "auto_accept", "auto_decline"]


class Decision(StrEnum):
    """What the room decided; values are Codex's decision names."""

    ACCEPT = "accept"
    ACCEPT_SESSION = "acceptForSession"
    DECLINE = "decline"


_BY_COMMAND = {
    "approve": Decision.ACCEPT,
    "approve-session": Decision.ACCEPT_SESSION,
    "decline": Decision.DECLINE,
}


@dataclass(frozen=True)
class ApprovalRequest:
    """One thing the agent wants to do. ``session_key`` is what ``/approve-session`` keeps."""

    kind: str
    summary: str
    session_key: str
    reason: str | None = None


@dataclass
class _Pending:
    request: ApprovalRequest
    future: asyncio.Future[Decision]
    reporter: Reporter
    on_answer: Callable[[Decision, str | None], None] | None = None


@dataclass(frozen=True)
class AuditEntry:
    """One decision: when, about what, what was decided and by whom."""

    at: float
    kind: str
    summary: str
    decision: Decision
    by: str


AUDIT_KEPT = 20


@dataclass
class _Room:
    audit: deque[AuditEntry]
    pending: dict[str, _Pending] = field(default_factory=dict)
    closed: dict[str, str] = field(default_factory=dict)
    # session approvals, least recently approved first
    session_keys: OrderedDict[str, None] = field(default_factory=OrderedDict)


class ApprovalRelay:
    """Pending approvals per room, answered by room commands or a timeout.

    Per room, at most ``max_pending`` requests wait at once (one more declines the oldest),
    ``max_session_approved`` session approvals are remembered (the least recently approved
    is forgotten first) and the latest ``max_audit`` decisions are kept; None: no limit.
    With ``authorized_senders``, only those sender ids may answer (None: anyone in the room).
    """

    def __init__(
        self,
        mode: ApprovalMode | str = ApprovalMode.MANUAL,
        *,
        wait_timeout_s: float = 300.0,
        timeout_decision: Decision | str = Decision.DECLINE,
        text_notifications: bool = True,
        max_pending: int | None = None,
        max_session_approved: int | None = None,
        max_audit: int = AUDIT_KEPT,
        authorized_senders: frozenset[str] | None = None,
    ) -> None:
        self.mode = ApprovalMode(mode)
        self.authorized_senders = authorized_senders
        self.wait_timeout_s = wait_timeout_s
        self.timeout_decision = Decision(timeout_decision)
        self.text_notifications = text_notifications
        self.max_pending = max_pending
        self.max_session_approved = max_session_approved
        self.max_audit = max_audit
        self._rooms: dict[str, _Room] = {}

    @classmethod
    def from_config(cls, config: Any) -> ApprovalRelay:
        """From a config with ``approval_mode``, ``approval_wait_timeout_s`` and
        ``approval_timeout_decision`` (both adapters' configs have them), and
        ``approval_text_notifications`` where there is one (otherwise automatic decisions
        are not announced), and the per-room limits ``max_pending_approvals_per_room``,
        ``max_session_approved_per_room`` and ``max_approval_audit_per_room`` where set
        (``max_pending_decisions`` and ``decision_authorized_senders``: Cursor's names)."""
        max_pending = getattr(config, "max_pending_approvals_per_room", None)
        return cls(
            config.approval_mode,
            wait_timeout_s=config.approval_wait_timeout_s,
            timeout_decision=config.approval_timeout_decision,
            text_notifications=getattr(config, "approval_text_notifications", False),
            max_pending=max_pending or getattr(config, "max_pending_decisions", None),
            max_session_approved=getattr(config, "max_session_approved_per_room", None),
            max_audit=getattr(config, "max_approval_audit_per_room", AUDIT_KEPT),
            authorized_senders=getattr(config, "decision_authorized_senders", None),
        )

    def _room(self, room_id: str) -> _Room:
        room = self._rooms.get(room_id)
        if room is None:
            room = self._rooms[room_id] = _Room(deque(maxlen=self.max_audit))
        return room

    def _approve_for_session(self, room: _Room, key: str) -> None:
        room.session_keys[key] = None
        room.session_keys.move_to_end(key)
        while self.max_session_approved and len(room.session_keys) > self.max_session_approved:
            room.session_keys.popitem(last=False)

    def _make_room_for(self, room_id: str, room: _Room) -> None:
        """Decline the oldest waiting requests until one more fits under ``max_pending``."""
        while self.max_pending and len(room.pending) >= self.max_pending:
            token, oldest = next(iter(room.pending.items()))
            room.pending.pop(token)
            room.closed[token] = f"it was declined: over {self.max_pending} were waiting"
            self._record(room, oldest.request, Decision.DECLINE, "the pending limit")
            logger.warning(
                "Room %s: approval %s declined, over %d pending", room_id, token, self.max_pending
            )
            if not oldest.future.done():
                oldest.future.set_result(Decision.DECLINE)

    def pending(self, room_id: str) -> list[str]:
        """Tokens still waiting for an answer in ``room_id``."""
        return list(self._room(room_id).pending)

    async def request(
        self,
        room_id: str,
        reporter: Reporter,
        request: ApprovalRequest,
        *,
        on_wait: Callable[[], None] = lambda: None,
        on_answer: Callable[[Decision, str | None], None] | None = None,
    ) -> Decision:
        """Decide ``request``: by policy, a session grant, or the room (``on_wait`` is called
        once the notice is posted, so the caller can release the room's turn;
        ``on_answer`` with the decision and its sender when a room member answers)."""
        room = self._room(room_id)
        token = secrets.token_hex(4)
        audit = {"approval_id": token, "kind": request.kind, "summary": request.summary}
        if request.session_key in room.session_keys:
            room.session_keys.move_to_end(request.session_key)
            self._record(room, request, Decision.ACCEPT_SESSION, "session approval")
            await reporter.task(f"Approval `{token}` accepted for the session", audit)
            return Decision.ACCEPT_SESSION
        if self.mode is not ApprovalMode.MANUAL:
            auto = self.mode is ApprovalMode.AUTO_ACCEPT
            decision = Decision.ACCEPT if auto else Decision.DECLINE
            self._record(room, request, decision, f"policy {self.mode}")
            if self.text_notifications:
                await reporter.notice(self._policy_text(request, decision))
            await reporter.task(f"Approval `{token}` {decision} by policy {self.mode}", audit)
            return decision
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._make_room_for(room_id, room)
        room.pending[token] = _Pending(request, future, reporter, on_answer)
        await reporter.task(f"Approval `{token}` requested", {**audit, "status": "requested"})
        await reporter.notice(self._ask_text(token, request))
        on_wait()
        try:
            decision = await asyncio.wait_for(asyncio.shield(future), self.wait_timeout_s)
        except TimeoutError:
            decision = self.timeout_decision
            room.closed[token] = f"it timed out and `{decision}` was applied"
            self._record(room, request, decision, "timeout")
            await reporter.notice(f"Approval `{token}` timed out; applied `{decision}`.")
        finally:
            room.pending.pop(token, None)
        await reporter.task(
            f"Approval `{token}` resolved as `{decision}`", {**audit, "decision": str(decision)}
        )
        return decision

    async def answer(
        self,
        room_id: str,
        tools: AgentToolsProtocol,
        command: RoomCommand,
        mentions: list[str],
        *,
        sender_id: str | None = None,
    ) -> None:
        """Apply ``/approve``, ``/decline`` or ``/approve-session`` from ``sender_id`` and
        tell the room; a sender outside ``authorized_senders`` changes nothing."""
        if self.authorized_senders is not None and sender_id not in self.authorized_senders:
            text = f"You are not allowed to answer approvals here (`/{command.name}` ignored)."
            await tools.send_notice(text, mentions=mentions)
            return
        room = self._room(room_id)
        decision = _BY_COMMAND[command.name]
        token = command.args[0].strip("`") if command.args else None
        if token is None and len(room.pending) == 1:
            token = next(iter(room.pending))
        pending = room.pending.get(token) if token else None
        if pending is None or pending.future.done():
            await tools.send_notice(self._unknown_text(room, command, token), mentions=mentions)
            return
        if decision is Decision.ACCEPT_SESSION:
            self._approve_for_session(room, pending.request.session_key)
        room.closed[token] = f"it was already resolved as `{decision}`"  # type: ignore[index]
        self._record(room, pending.request, decision, "the room")
        if pending.on_answer is not None:
            pending.on_answer(decision, sender_id)
        pending.future.set_result(decision)
        await tools.send_notice(f"Approval `{token}` resolved as `{decision}`.", mentions=mentions)

    def forget(self, room_id: str) -> None:
        """Drop a room's state; waiting requests are declined."""
        room = self._rooms.pop(room_id, None)
        for pending in room.pending.values() if room else ():
            if not pending.future.done():
                pending.future.set_result(Decision.DECLINE)

    @staticmethod
    def _record(room: _Room, request: ApprovalRequest, decision: Decision, by: str) -> None:
        room.audit.append(AuditEntry(time.time(), request.kind, request.summary, decision, by))

    def permissions(self, room_id: str, recent: int = 5) -> list[str]:
        """Session approvals and the latest decisions of ``room_id``, for ``/permissions``."""
        room = self._room(room_id)
        lines = [f"Approved for this session: {len(room.session_keys) or 'nothing'}."]
        lines += [f"- `{key}`" for key in sorted(room.session_keys)]
        entries = list(room.audit)[-recent:]
        if entries:
            lines.append(f"Latest decisions ({len(entries)}):")
            for entry in entries:
                when = time.strftime("%H:%M:%S", time.gmtime(entry.at))
                lines.append(
                    f"- {when} UTC {entry.kind} `{entry.summary}`: `{entry.decision}` ({entry.by})"
                )
        else:
            lines.append("No approval has been decided in this room yet.")
        return lines

    def describe(self, room_id: str) -> str:
        """The approval settings and what is pending, for ``/approvals`` and ``/status``."""
        room = self._room(room_id)
        lines = [f"Approval mode: `{self.mode}`."]
        if self.mode is ApprovalMode.MANUAL:
            lines.append(
                f"Unanswered requests get `{self.timeout_decision}` after "
                f"{self.wait_timeout_s:g} s."
            )
        if room.pending:
            listed = ", ".join(
                f"`{t}` ({p.request.kind}: {p.request.summary})" for t, p in room.pending.items()
            )
            lines.append(f"Pending: {listed}.")
        else:
            lines.append("No approval is pending.")
        if room.session_keys:
            lines.append(f"Approved for this session: {len(room.session_keys)}.")
        return " ".join(lines)

    # -- texts ------------------------------------------------------------------------------

    def _policy_text(self, request: ApprovalRequest, decision: Decision) -> str:
        return (
            f"Approval requested ({request.kind}): `{request.summary}`. Policy "
            f"`{self.mode}` decided `{decision}`."
        )

    def _ask_text(self, token: str, request: ApprovalRequest) -> str:
        reason = f" Reason: {request.reason}." if request.reason else ""
        return (
            f"Approval requested ({request.kind}): `{request.summary}`.{reason} "
            f"Approval id: `{token}`. Reply `/approve {token}`, `/decline {token}` or "
            f"`/approve-session {token}`. Without an answer within "
            f"{self.wait_timeout_s:g} s it is answered `{self.timeout_decision}`."
        )

    def _unknown_text(self, room: _Room, command: RoomCommand, token: str | None) -> str:
        if token is None:
            waiting = ", ".join(f"`{t}`" for t in room.pending) or "none"
            return f"Usage: `/{command.name} <approval id>`. Pending approvals: {waiting}."
        if token in room.closed:
            return f"Approval `{token}` is no longer pending: {room.closed[token]}."
        waiting = ", ".join(f"`{t}`" for t in room.pending)
        tail = f"Pending approvals: {waiting}." if waiting else "No approval is pending."
        return f"Approval `{token}` is unknown or has expired. {tail}"
