"""One turn, start to ack: claim, keep the working indicator alive, call the adapter, judge, ack.

``TurnRunner.run`` never raises for adapter errors: it turns every ending into an
``Outcome`` and the matching platform writes (``/processed``, ``/failed`` + error event, or
nothing when the room's execution was stopped).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from band.core.exceptions import RoomExecutionStoppedError, TurnResultAlreadyReported
from band.core.protocols import (
    GENERIC_PROVIDER_FAILURE_MESSAGE,
    TURN_FAILURE_PROVIDER,
    AgentToolsProtocol,
)
from band.core.types import AgentInput, HistoryProvider, PlatformMessage
from band.platform.rest import BandRestClient, MarkResult
from band.platform.turn_keys import turn_scope
from band_sdk_core import AgentFailure

from .config import SessionConfig
from .history import build_platform_message
from .retry_tracker import MessageRetryTracker

if TYPE_CHECKING:
    from .room import RoomState

__all__ = ["Outcome", "RetryTracker", "TurnRunner", "TurnServices"]

log = logging.getLogger("band.runtime.execution")

ToolsFactory = Callable[["RoomState"], AgentToolsProtocol]


class Outcome(StrEnum):
    """How a message ended for this process."""

    PROCESSED = "processed"
    FAILED = "failed"
    SKIPPED = "skipped"
    STOPPED = "stopped"
    INTERRUPTED = "interrupted"


class RetryTracker(MessageRetryTracker):
    """Attempts per message id, plus the ids this process is done with or owes an ack."""

    def __init__(self, max_retries: int = 1) -> None:
        super().__init__(max_retries)
        self.done: set[str] = set()
        self.pending_acks: set[str] = set()


NEXT_IN_FLIGHT = 4
"""``/next`` requests one agent keeps in flight at most (the rest wait their turn)."""


@dataclass
class TurnServices:
    """What every room's turns share: identity, REST, adapter, tuning, bookkeeping."""

    agent_id: str
    rest: BandRestClient
    adapter: Any
    session: SessionConfig
    tools_factory: ToolsFactory
    retries: RetryTracker = field(init=False)
    next_gate: asyncio.Semaphore = field(init=False)

    def __post_init__(self) -> None:
        self.retries = RetryTracker(self.session.max_message_retries)
        # ``/next`` polls in flight at once across all rooms: starting with 50 rooms, or
        # reconnecting, queues them instead of firing them in one burst at the platform.
        self.next_gate = asyncio.Semaphore(NEXT_IN_FLIGHT)


class TurnRunner:
    """Runs one message of one room; ``interrupt(mode)`` cancels the adapter call."""

    def __init__(self, services: TurnServices, room: RoomState) -> None:
        self.s = services
        self.room = room
        self._adapter_task: asyncio.Task[None] | None = None
        self._cancel_mode: str | None = None

    def interrupt(self, mode: str) -> None:
        """Cancel the running adapter call (``interrupt`` consumes, ``stop`` leaves it)."""
        self._cancel_mode = mode
        if self._adapter_task is not None:
            self._adapter_task.cancel()

    async def run(self, payload: dict[str, Any]) -> Outcome:
        """Run the message in ``payload`` (already de-duplicated by the room worker)."""
        s, room, rid = self.s, self.room, self.room.room_id
        message_id = str(payload.get("id"))
        if message_id in s.retries.pending_acks:
            # A turn that ran but whose ack was lost: retry only the ack.
            if (await s.rest.mark_processed(rid, message_id)).ok:
                s.retries.pending_acks.discard(message_id)
                s.retries.done.add(message_id)
            return Outcome.SKIPPED
        count, exceeded = s.retries.record_attempt(message_id)
        if exceeded:
            if count == s.session.max_message_retries + 1:
                log.warning("Message %s exceeded max retries (%d attempts)", message_id, count - 1)
            return Outcome.SKIPPED
        claim = await s.rest.mark_processing(rid, message_id)
        if claim is MarkResult.STOPPED:
            s.retries.discard_attempt(message_id)
            return Outcome.STOPPED
        if not claim.ok:
            log.warning("Room %s: could not claim message %s (%s)", rid, message_id, claim)
            s.retries.discard_attempt(message_id)
            return Outcome.SKIPPED
        await room.ensure_hydrated()
        if room.context_says_processed(message_id):
            s.retries.done.add(message_id)
            await s.rest.mark_processed(rid, message_id)
            return Outcome.SKIPPED
        try:
            msg = build_platform_message(payload, rid, room.roster)
        except (ValueError, KeyError) as exc:
            # e.g. an inserted_at Python cannot parse: the turn fails, visibly, once.
            log.error("Room %s: unreadable message %s: %s", rid, message_id, exc)
            await s.rest.mark_failed(rid, message_id, f"unreadable message: {exc}")
            s.retries.done.add(message_id)
            return Outcome.FAILED
        # Posts of this turn carry keys derived from the message: a re-run after a crash
        # between the reply and /processed does not answer twice (platform.turn_keys).
        with turn_scope(s.agent_id, message_id):
            return await self._turn(msg, count)

    async def _turn(self, msg: PlatformMessage, count: int) -> Outcome:
        s, room, rid = self.s, self.room, self.room.room_id
        tools = s.tools_factory(room)
        last_attempt = count >= s.session.max_message_retries
        error: BaseException | None = None
        keep_alive: asyncio.Task[None] | None = None
        if s.session.enable_working_state:
            await s.rest.send_activity(rid, True)
            keep_alive = asyncio.create_task(self._keep_alive())
        try:
            inp = self._input(msg, tools)
            self._adapter_task = asyncio.create_task(s.adapter.on_event(inp))
            # wait_for cancels the adapter call on timeout and when this task is cancelled.
            await asyncio.wait_for(self._adapter_task, s.session.max_cycle_seconds)
        except asyncio.CancelledError:
            if self._cancel_mode is None:
                raise  # the worker itself is being cancelled (hard stop)
        except Exception as exc:
            error = exc
        finally:
            if keep_alive is not None:
                keep_alive.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await keep_alive
            if s.session.enable_working_state:
                await s.rest.send_activity(rid, False)
        room.bootstrap_done()
        return await self._finish(msg, tools, error, last_attempt)

    async def _finish(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        error: BaseException | None,
        last_attempt: bool,
    ) -> Outcome:
        s, rid = self.s, self.room.room_id
        if self._cancel_mode == "stop" or isinstance(error, RoomExecutionStoppedError):
            s.retries.discard_attempt(msg.id)
            log.info("Room %s: turn for %s stopped by the platform", rid, msg.id)
            return Outcome.STOPPED
        if self._cancel_mode == "interrupt":
            s.retries.discard_attempt(msg.id)
            await self._ack(msg.id)
            log.info("Room %s: turn for %s interrupted", rid, msg.id)
            return Outcome.INTERRUPTED
        if error is None:
            await self._ack(msg.id)
            return Outcome.PROCESSED
        text = str(error).strip() or type(error).__name__
        if isinstance(error, TurnResultAlreadyReported):
            log.debug("Room %s: message %s failed: %s", rid, msg.id, text)
        else:
            log.error("Error processing message_created", exc_info=error)
        await s.rest.mark_failed(rid, msg.id, text)
        report = (
            last_attempt
            and s.session.report_turn_failures_to_room
            and not isinstance(error, TurnResultAlreadyReported)
            and not tools.turn.failure_reported
        )
        if report:
            failure = AgentFailure(TURN_FAILURE_PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE)
            try:
                await s.rest.post_event(
                    rid, GENERIC_PROVIDER_FAILURE_MESSAGE, "error", {"failure": failure.to_dict()}
                )
            except Exception as exc:
                log.warning("Room %s: could not post the failure notice: %s", rid, exc)
        if last_attempt:
            s.retries.done.add(msg.id)
        return Outcome.FAILED

    async def _ack(self, message_id: str) -> None:
        result = await self.s.rest.mark_processed(self.room.room_id, message_id)
        self.s.retries.done.add(message_id)
        if not result.ok and result is not MarkResult.STOPPED:
            log.warning(
                "Room %s: ack of %s unconfirmed (%s)", self.room.room_id, message_id, result
            )
            self.s.retries.done.discard(message_id)
            self.s.retries.pending_acks.add(message_id)

    def _input(self, msg: PlatformMessage, tools: AgentToolsProtocol) -> AgentInput:
        room = self.room
        bootstrap = room.bootstrap
        raw = room.history_for(msg.id) if bootstrap else []
        return AgentInput(
            msg=msg,
            tools=tools,
            history=HistoryProvider(raw),
            participants_msg=room.take_participants_message(),
            contacts_msg=None,
            is_session_bootstrap=bootstrap,
            room_id=room.room_id,
        )

    async def _keep_alive(self) -> None:
        rid = self.room.room_id
        while True:
            await asyncio.sleep(self.s.session.working_keep_alive_seconds)
            if await self.s.rest.send_activity(rid, True) is False:
                log.info("Room %s: platform reports the execution stopped", rid)
                self.interrupt("stop")
                return
