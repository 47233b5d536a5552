"""One room's open OpenCode asks: permission asks and the question tool's questions.

How it works: docs/internals/sdk.md, "OpenCode: open asks".

``RoomApprovals`` holds them by request id and answers them, at once or from the room.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from band.core.protocols import AgentToolsProtocol
from band.integrations.opencode import (
    ApprovalReply,
    OpencodeClientProtocol,
    OpencodePermissionRequest,
    OpencodeQuestionRequest,
)
from band.runtime.decisions import DecisionEntry, DecisionRegistry
from band.runtime.formatters import format_tokens, strip_leading_mentions

from .asks import (
    DECLINED_ANSWER,
    REJECTION_NOTE,
    PendingPermission,
    PendingQuestion,
    PermissionCommand,
    PermissionReplyWord,
    format_question_prompt,
    parse_permission_reply,
    parse_question_answers,
)
from .config import OpencodeAdapterConfig

__all__ = [
    "ApprovalPorts",
    "ApprovalReplyError",
    "PendingPermission",
    "PendingQuestion",
    "PermissionCommand",
    "PermissionReplyWord",
    "RoomApprovals",
    "format_question_prompt",
    "parse_permission_reply",
    "parse_question_answers",
]

logger = logging.getLogger(__name__)


@dataclass
class ApprovalPorts:
    """What ``RoomApprovals`` uses of the adapter, for one room: the server's client and
    the turn's tools (None between turns), whom to mention, how to detach the turn while
    the room decides, how to fail it, how to abort the session, and which tools are ours."""

    room_id: str
    client: Callable[[], OpencodeClientProtocol | None]
    tools: Callable[[], AgentToolsProtocol | None]
    turn_mentions: Callable[[], list[dict[str, str]]]
    release_turn_wait: Callable[[], None]
    fail_turn: Callable[[str], None]
    abort_session: Callable[[], Awaitable[None]]
    is_own_band_tool: Callable[[str], bool]


class ApprovalReplyError(Exception):
    """Sending a reply to OpenCode failed (the turn is failed and its session aborted)."""


PendingT = TypeVar("PendingT", PendingPermission, PendingQuestion)


class RoomApprovals:
    """A room's open permission asks and questions, and their answers.

    ``awaiting_human``/``human_wait_seconds`` tell the turn how long it waited for the room
    (that time does not count against its timeout); ``cancel``/``abandon`` end it all.
    ``known_*_ids`` (shared across a room's turns) let a late reply to an answered ask be
    told so instead of reaching the model as a new message.
    """

    def __init__(
        self,
        config: OpencodeAdapterConfig,
        ports: ApprovalPorts,
        *,
        known_permission_ids: set[str] | None = None,
        known_question_ids: set[str] | None = None,
        decide: Callable[[OpencodePermissionRequest], Awaitable[ApprovalReply]] | None = None,
    ) -> None:
        self.config = config
        self.ports = ports
        self.decide = decide
        self.permissions: DecisionRegistry[PendingPermission] = DecisionRegistry()
        self.questions: DecisionRegistry[PendingQuestion] = DecisionRegistry()
        self.known_permission_ids = set() if known_permission_ids is None else known_permission_ids
        self.known_question_ids = set() if known_question_ids is None else known_question_ids
        self._waited = 0.0
        self._since: float | None = None

    # -- waiting for the room -------------------------------------------------------------------

    def awaiting_human(self) -> bool:
        """Whether an ask waits for the room (or its answer is being sent)."""
        return (
            self._since is not None
            or self.permissions.has_claimed()
            or (self.questions.has_claimed())
        )

    @property
    def human_wait_seconds(self) -> float:
        """Seconds spent waiting for the room so far, the current wait included."""
        now = asyncio.get_running_loop().time()
        return self._waited + (0.0 if self._since is None else now - self._since)

    def _parked(self) -> bool:
        return self.permissions.has_unclaimed() or self.questions.has_unclaimed()

    def _start_waiting(self) -> None:
        if self._since is None:
            self._since = asyncio.get_running_loop().time()

    def _stop_waiting_if_done(self) -> None:
        if not self._parked() and self._since is not None:
            self._waited += asyncio.get_running_loop().time() - self._since
            self._since = None

    # -- asks -----------------------------------------------------------------------------------

    async def on_permission_asked(self, request: OpencodePermissionRequest) -> None:
        """Answer a permission ask by the mode, or post it to the room (``manual``)."""
        if not request.id:
            return
        if self.ports.is_own_band_tool(request.permission):
            await self._send(lambda c: c.reply_permission(request.id or "", reply="always"))
            return
        pending = PendingPermission(request.id, request.permission, list(request.patterns))
        registration = self.permissions.register_keyed(pending, key=request.id)
        if registration is None:
            return
        self.known_permission_ids.add(request.id)
        mode = str(self.config.approval_mode)
        if mode != "manual":
            await self._answer_permission(pending, "once" if mode == "auto_accept" else "reject")
            return
        if self.decide is not None:  # claimed first: room words do not answer it meanwhile
            entry = self.permissions.try_claim(request.id)
            if entry is not None:
                await self._send_permission(entry, await self.decide(request))
            return
        self.permissions.start_timeout(
            registration.entry, self.config.approval_wait_timeout_s, self._permission_expired
        )
        self._start_waiting()
        touches = ", ".join(pending.patterns) or "nothing listed"
        await self._notice(
            f"OpenCode asks to use `{pending.permission}` ({touches}). Answer "
            f"`approve {request.id}`, `always {request.id}` or `reject {request.id}`.",
            self.ports.turn_mentions(),
        )
        self.ports.release_turn_wait()

    async def on_question_asked(self, request: OpencodeQuestionRequest) -> None:
        """Decline a question by the mode (or when it has none), or post it to the room."""
        if not request.id:
            logger.warning("Room %s: an OpenCode question without id", self.ports.room_id)
            return
        pending = PendingQuestion(request.id, list(request.questions))
        registration = self.questions.register_keyed(pending, key=request.id)
        if registration is None:
            return
        self.known_question_ids.add(request.id)
        if not pending.questions or self.config.question_mode == "auto_reject":
            await self._decline_question(pending)
            return
        self.questions.start_timeout(
            registration.entry, self.config.question_wait_timeout_s, self._question_expired
        )
        self._start_waiting()
        await self._notice(
            format_question_prompt(pending.questions, request.id), self.ports.turn_mentions()
        )
        self.ports.release_turn_wait()

    # -- the room's replies ---------------------------------------------------------------------

    async def try_handle_reply(self, content: str, sender_id: str | None) -> bool:
        """Answer an open ask with a room message; True when the message was such an
        answer (or a reply to an ask no longer open), so it is not a prompt."""
        raw = content.strip()
        if not raw:
            return False
        text = strip_leading_mentions(raw).strip()
        mentions = [{"id": sender_id}] if sender_id else []
        command = parse_permission_reply(text)
        if command is not None and self._for_permission(command):
            await self._permission_reply(command, mentions)
            return True
        question = self._question_for(text, command)
        if question is not None:
            if command is not None and command.reply == "reject":
                if await self._decline_question(question):
                    await self._notice(f"Question `{question.request_id}` declined.", mentions)
                return True
            answers = parse_question_answers(strip_leading_mentions(raw, only_first=True), question)
            if answers is None:
                await self._notice(
                    "OpenCode needs an answer to each question, a line each (or `reject`).",
                    mentions,
                )
            elif await self._answer_question(question, answers):
                await self._notice(f"Question `{question.request_id}` answered.", mentions)
            return True
        if command is not None and command.request_id in self.known_question_ids:
            await self._notice(f"Question `{command.request_id}` is no longer open.", mentions)
            return True
        return False

    def _for_permission(self, command: PermissionCommand) -> bool:
        named = command.request_id
        if named is not None:
            if named in self.questions or (
                named in self.known_question_ids and named not in self.known_permission_ids
            ):
                return False
            return named in self.permissions or named in self.known_permission_ids
        return self.permissions.has_unclaimed()

    async def _permission_reply(
        self, command: PermissionCommand, mentions: list[dict[str, str]]
    ) -> None:
        open_asks = self.permissions.unclaimed()
        if command.request_id is None and len(open_asks) > 1:
            ids = format_tokens(e.token for e in open_asks)
            await self._notice(f"Several OpenCode asks are open ({ids}): name one.", mentions)
            return
        named = command.request_id or open_asks[0].token
        pending = self.permissions.get(named)
        if pending is None:
            await self._notice(f"OpenCode ask `{named}` is no longer open.", mentions)
        elif await self._answer_permission(pending, command.reply):
            await self._notice(f"OpenCode ask `{named}` answered `{command.reply}`.", mentions)

    def _question_for(self, text: str, command: PermissionCommand | None) -> PendingQuestion | None:
        if command is not None and command.reply != "reject":
            return None
        if command is not None and command.request_id is not None:
            return self.questions.get(command.request_id)
        oldest = self.questions.oldest_unclaimed()
        return None if oldest is None else oldest.payload

    # -- replies to OpenCode --------------------------------------------------------------------

    async def _answer_permission(self, pending: PendingPermission, reply: ApprovalReply) -> bool:
        entry = self.permissions.try_claim(pending.request_id)
        return entry is not None and await self._send_permission(entry, reply)

    async def _send_permission(
        self, entry: DecisionEntry[PendingPermission], reply: ApprovalReply
    ) -> bool:
        note = REJECTION_NOTE if reply == "reject" else None
        sent = await self._send(
            lambda c: c.reply_permission(entry.token, reply=reply, message=note)
        )
        self.permissions.forget(entry)
        self._stop_waiting_if_done()
        return sent

    async def _answer_question(self, pending: PendingQuestion, answers: list[list[str]]) -> bool:
        entry = self.questions.try_claim(pending.request_id)
        return entry is not None and await self._send_answers(entry, answers)

    async def _decline_question(self, pending: PendingQuestion) -> bool:
        declined = [[DECLINED_ANSWER] for _ in pending.questions]
        return await self._answer_question(pending, declined)

    async def _send_answers(
        self, entry: DecisionEntry[PendingQuestion], answers: list[list[str]]
    ) -> bool:
        sent = await self._send(lambda c: c.reply_question(entry.token, answers=answers))
        self.questions.forget(entry)
        self._stop_waiting_if_done()
        return sent

    async def _send(self, call: Callable[[OpencodeClientProtocol], Awaitable[None]]) -> bool:
        """Send one reply; a failure fails the turn and aborts the session (False)."""
        client = self.ports.client()
        try:
            if client is None:
                raise ApprovalReplyError("no OpenCode server connection")
            await call(client)
            return True
        except Exception as exc:
            logger.warning("Room %s: replying to OpenCode failed: %s", self.ports.room_id, exc)
            self.cancel()
            self.ports.fail_turn(f"OpenCode could not be answered: {exc}")
            await self.ports.abort_session()
            return False

    async def _permission_expired(self, entry: DecisionEntry[PendingPermission]) -> None:
        reply = self.config.approval_timeout_reply
        if await self._send_permission(entry, reply) and (tools := self.ports.tools()):
            await tools.send_event(
                f"OpenCode ask `{entry.token}` got no answer in time; it was answered `{reply}`.",
                "error",
            )

    async def _question_expired(self, entry: DecisionEntry[PendingQuestion]) -> None:
        declined = [[DECLINED_ANSWER] for _ in entry.payload.questions]
        if await self._send_answers(entry, declined) and (tools := self.ports.tools()):
            await tools.send_event(
                f"OpenCode question `{entry.token}` got no answer in time; it was declined.",
                "error",
            )

    async def _notice(self, text: str, mentions: list[dict[str, str]]) -> None:
        """A notice to the room (never the turn's reply); a failure is only logged."""
        tools = self.ports.tools()
        if tools is None:
            return
        try:
            await tools.send_notice(text, mentions=mentions)
        except Exception:
            logger.exception("Room %s: posting an OpenCode ask failed", self.ports.room_id)

    # -- the end --------------------------------------------------------------------------------

    def cancel(self) -> None:
        """Forget every open ask and its timer (the turn or the room ended)."""
        self.permissions.cancel_all()
        self.questions.cancel_all()
        self._stop_waiting_if_done()

    async def abandon(self) -> bool:
        """``cancel``, aborting the session when an ask was still open (True then)."""
        open_asks = self._parked()
        self.cancel()
        if open_asks:
            await self.ports.abort_session()
        return open_asks
