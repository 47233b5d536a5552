"""One message, start to ack: claim, keep the working indicator alive, run the handler, settle.

How it works: docs/internals/sdk.md, "One message, start to ack".

``TurnRunner.run`` never raises for handler errors: every ending becomes an ``Outcome`` and
its platform writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any, Protocol

from band.core.exceptions import (
    InputNotAccepted,
    RoomExecutionStoppedError,
    TurnResultAlreadyReported,
)
from band.core.protocols import GENERIC_PROVIDER_FAILURE_MESSAGE, TURN_FAILURE_PROVIDER
from band.platform.event import MessageEvent, event_from_push
from band.platform.rest import BandRestClient, MarkResult
from band.platform.turn_keys import turn_scope
from band_protocol import AgentFailure, tracing
from band_protocol.tracing import TRACING

from .config import SessionConfig
from .retry_tracker import MessageRetryTracker
from .room import RoomState

__all__ = ["NEXT_IN_FLIGHT", "Outcome", "RetryTracker", "RoomOfTurn", "TurnRunner", "TurnServices"]

log = logging.getLogger("band.runtime.execution")


class TurnOutcome(Enum):
    """Where one delivery attempt left its message."""

    ADVANCED = "advanced"  # settled: handled, skipped, failed and marked, or interrupted
    PAUSED = "paused"  # a stop left it for replay on play
    RETRY_LATER = "retry_later"  # not settled; a resync tries it again
    NOT_ACCEPTED = "not_accepted"  # the adapter refused the input (InputNotAccepted)


DEFERRED_OUTCOMES = frozenset({TurnOutcome.RETRY_LATER, TurnOutcome.NOT_ACCEPTED})


class Outcome(StrEnum):
    """How a message ended for this process."""

    PROCESSED = "processed"
    FAILED = "failed"
    SKIPPED = "skipped"
    STOPPED = "stopped"
    INTERRUPTED = "interrupted"
    DEFERRED = "deferred"  # the handler did not accept the input; it stays open

    @property
    def turn_outcome(self) -> TurnOutcome:
        """The coarser band-sdk vocabulary of this outcome."""
        if self is Outcome.STOPPED:
            return TurnOutcome.PAUSED
        if self is Outcome.DEFERRED:
            return TurnOutcome.NOT_ACCEPTED
        return TurnOutcome.ADVANCED


class RetryTracker(MessageRetryTracker):
    """Attempts per message id, plus the ids this process is done with or owes an ack."""

    def __init__(self, max_retries: int = 1) -> None:
        super().__init__(max_retries)
        self.done: set[str] = set()
        self.pending_acks: set[str] = set()


NEXT_IN_FLIGHT = 4
"""``/next`` requests one agent keeps in flight at most (the rest wait their turn)."""


@dataclass
class ClaimRegistry:
    """The messages being run right now, per room, shared by an agent's executions.

    A message already claimed here (a room re-added while its old execution still runs it,
    a /next drain racing a push) is not run a second time.
    """

    def __init__(self) -> None:
        self._claimed: dict[str, set[str]] = {}

    def claim(self, room_id: str, message_id: str) -> bool:
        """Take ``message_id``; False when another execution already holds it."""
        held = self._claimed.setdefault(room_id, set())
        if message_id in held:
            return False
        held.add(message_id)
        return True

    def release(self, room_id: str, message_id: str) -> None:
        self._claimed.get(room_id, set()).discard(message_id)

    def discard_completed(self, room_id: str) -> None:
        """Forget a room whose executions all ended."""
        if not self._claimed.get(room_id):
            self._claimed.pop(room_id, None)


@dataclass
class TurnServices:
    """What every room of one agent shares: identity, REST, tuning, bookkeeping."""

    agent_id: str
    rest: BandRestClient
    session: SessionConfig
    retries: RetryTracker = field(init=False)
    next_gate: asyncio.Semaphore = field(init=False)
    claims: ClaimRegistry = field(default_factory=ClaimRegistry)

    def __post_init__(self) -> None:
        self.retries = RetryTracker(self.session.max_message_retries)
        # ``/next`` polls in flight at once across all rooms: starting with 50 rooms, or
        # reconnecting, queues them instead of firing them in one burst at the platform.
        self.next_gate = asyncio.Semaphore(NEXT_IN_FLIGHT)


def message_event(room_id: str, payload: dict[str, Any]) -> MessageEvent:
    """The typed event for a message served by ``/next`` (pushes arrive typed already)."""
    event = event_from_push("message_created", room_id, payload)
    assert isinstance(event, MessageEvent)  # nosec B101 # narrows for mypy: message_created is a MessageEvent
    return event


class RoomOfTurn(Protocol):
    """What a turn needs of its room's execution (``room_execution.ExecutionContext``)."""

    @property
    def room_id(self) -> str: ...

    @property
    def room(self) -> RoomState: ...

    @property
    def on_execute(self) -> Callable[[Any, MessageEvent], Awaitable[None]]: ...

    async def platform_stopped(self) -> None: ...


class TurnRunner:
    """Runs one message of one room; ``interrupt(mode)`` cancels the handler call."""

    def __init__(self, services: TurnServices, ctx: RoomOfTurn) -> None:
        self.s = services
        self.ctx = ctx
        self.failure_reported = False
        self.stop_notified = False
        self._task: asyncio.Future[None] | None = None
        self._cancel_mode: str | None = None
        self._on_claim = False  # the platform started the indicator with the claim

    def interrupt(self, mode: str) -> None:
        """Cancel the running handler (``interrupt`` consumes the message, ``stop`` leaves it)."""
        self._cancel_mode = mode
        if self._task is not None:
            self._task.cancel()

    async def run_traced(
        self, payload: dict[str, Any], event: MessageEvent | None, *, claimed: bool
    ) -> Outcome:
        """:meth:`run`, as a span continuing the trace the push carried (when tracing)."""
        if not TRACING.on:
            return await self.run(payload, event, claimed=claimed)
        about = {
            "band.agent_id": self.s.agent_id,
            "band.room_id": self.ctx.room_id,
            "band.message_id": str(payload.get("id")),
        }
        with tracing.span("band.turn", parent=payload, attributes=about):
            return await self.run(payload, event, claimed=claimed)

    async def run(
        self, payload: dict[str, Any], event: MessageEvent | None = None, *, claimed: bool = False
    ) -> Outcome:
        """Run the message in ``payload`` (already de-duplicated by the room's loop);
        ``claimed``: its push opened the attempt (and the indicator, with working state on),
        so a first attempt skips its claim."""
        s, state, rid = self.s, self.ctx.room, self.ctx.room_id
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
        if claimed and count == 1:
            self._on_claim = s.session.enable_working_state
        else:
            working = s.session.enable_working_state
            claim = await s.rest.claim(rid, message_id, working=working)
            if claim.result is MarkResult.STOPPED:
                s.retries.discard_attempt(message_id)
                return Outcome.STOPPED
            if not claim.result.ok:
                log.warning("Room %s: could not claim %s (%s)", rid, message_id, claim.result)
                s.retries.discard_attempt(message_id)
                return Outcome.SKIPPED
            self._on_claim = claim.working
        await state.ensure_hydrated()
        if state.context_says_processed(message_id):
            s.retries.done.add(message_id)
            await self._ended_by(await s.rest.mark_processed(rid, message_id))
            return Outcome.SKIPPED
        event = event or message_event(rid, payload)
        if not s.claims.claim(rid, message_id):
            s.retries.discard_attempt(message_id)
            return Outcome.SKIPPED
        # Posts of this turn carry keys derived from the message: a re-run after a crash
        # between the reply and /processed does not answer twice (platform.turn_keys).
        try:
            with turn_scope(s.agent_id, message_id):
                error = await self._call(event)
                last = count >= s.session.max_message_retries
                return await self._finish(message_id, error, last)
        finally:
            s.claims.release(rid, message_id)

    async def run_synthetic(self, event: MessageEvent) -> Outcome:
        """A message the SDK made itself (a contact event in the hub room): it is not on the
        platform, so it is neither claimed, retried nor acknowledged."""
        error = await self._call(event)
        if error is not None:
            log.warning("Room %s: synthetic turn failed: %s", self.ctx.room_id, error)
        return Outcome.PROCESSED

    async def _call(self, event: MessageEvent) -> BaseException | None:
        """The handler, under the working indicator and ``max_cycle_seconds``."""
        s = self.s
        working = s.session.enable_working_state
        keep_alive: _KeepAlive | None = None
        if working:
            if not self._on_claim:
                await self._activity(True)
            keep_alive = _KeepAlive(self._keep_alive, s.session.working_keep_alive_seconds)
        # Whether the indicator is ended here: always when this turn reported it itself; when
        # the claim started it, only if no mark will follow (a hard stop).
        end_here = working and not self._on_claim
        try:
            self._task = asyncio.ensure_future(self.ctx.on_execute(self.ctx, event))
            # wait_for cancels the handler on timeout and when this task is cancelled.
            await asyncio.wait_for(self._task, s.session.max_cycle_seconds)
        except asyncio.CancelledError:
            if self._cancel_mode is None:
                end_here = working
                raise  # the loop itself is being cancelled (hard stop)
        except Exception as exc:
            return exc
        finally:
            if keep_alive is not None:
                await keep_alive.stop()
            if end_here:
                await self._activity(False)
        return None

    async def _finish(self, message_id: str, error: BaseException | None, last: bool) -> Outcome:
        s, rid = self.s, self.ctx.room_id
        if self._cancel_mode == "stop" or isinstance(error, RoomExecutionStoppedError):
            s.retries.discard_attempt(message_id)
            await self._ended_by(None)  # no mark ends this turn
            log.info("Room %s: turn for %s stopped by the platform", rid, message_id)
            return Outcome.STOPPED
        if self._cancel_mode == "interrupt":
            s.retries.discard_attempt(message_id)
            await self._ack(message_id)
            log.info("Room %s: turn for %s interrupted", rid, message_id)
            return Outcome.INTERRUPTED
        if isinstance(error, InputNotAccepted):
            s.retries.discard_attempt(message_id)
            await self._ended_by(None)  # kept open: no mark
            log.info("Room %s: input %s not accepted (%s); kept open", rid, message_id, error)
            return Outcome.DEFERRED
        if error is None:
            await self._ack(message_id)
            return Outcome.PROCESSED
        text = str(error).strip() or type(error).__name__
        if isinstance(error, TurnResultAlreadyReported):
            log.debug("Room %s: message %s failed: %s", rid, message_id, text)
        else:
            log.error("Error processing message_created", exc_info=error)
        await self._ended_by(await s.rest.mark_failed(rid, message_id, text))
        report = (
            last
            and s.session.report_turn_failures_to_room
            and not isinstance(error, TurnResultAlreadyReported)
            and not self.failure_reported
        )
        if report:
            failure = AgentFailure(TURN_FAILURE_PROVIDER, GENERIC_PROVIDER_FAILURE_MESSAGE)
            try:
                await s.rest.post_event(
                    rid, GENERIC_PROVIDER_FAILURE_MESSAGE, "error", {"failure": failure.to_dict()}
                )
            except Exception as exc:
                log.warning("Room %s: could not post the failure notice: %s", rid, exc)
        if last:
            s.retries.done.add(message_id)
        return Outcome.FAILED

    async def _ack(self, message_id: str) -> None:
        result = await self.s.rest.mark_processed(self.ctx.room_id, message_id)
        await self._ended_by(result)
        self.s.retries.done.add(message_id)
        self.s.retries.mark_success(message_id)
        if not result.ok and result is not MarkResult.STOPPED:
            log.warning("Room %s: ack of %s unconfirmed (%s)", self.ctx.room_id, message_id, result)
            self.s.retries.done.discard(message_id)
            self.s.retries.pending_acks.add(message_id)

    # -- the working indicator ---------------------------------------------------------------

    @property
    def _activity_timeout(self) -> float:
        return self.s.session.working_request_timeout_seconds

    async def _ended_by(self, mark: MarkResult | None) -> None:
        """The turn's last mark (None: there is none): when the claim started the indicator
        and this mark did not land, end it here."""
        if self._on_claim and (mark is None or not mark.ok):
            self._on_claim = False
            await self._activity(False)

    async def _activity(self, working: bool) -> bool | None:
        return await self.s.rest.send_activity(
            self.ctx.room_id, working, timeout=self._activity_timeout
        )

    async def _keep_alive(self, started: float) -> None:
        """From the first beat on (``_KeepAlive`` waited for it): refresh, then wait again."""
        cfg = self.s.session
        while True:
            cap = cfg.max_working_state_seconds
            if cap is not None and time.monotonic() - started >= cap:
                return  # the indicator lapses on the platform; the turn goes on
            if await self._activity(True) is False:
                log.info("Room %s: platform reports the execution stopped", self.ctx.room_id)
                await self.ctx.platform_stopped()
                return
            await asyncio.sleep(cfg.working_keep_alive_seconds)


class _KeepAlive:
    """A turn's keep-alive beats: a timer until the first is due, then a task for the rest.

    Most turns end before their first beat; they then cost a timer, not a task to create,
    cancel and await.
    """

    def __init__(self, beats: Callable[[float], Awaitable[None]], every: float) -> None:
        self._beats = beats
        self._started = time.monotonic()
        self._task: asyncio.Task[None] | None = None
        self._timer = asyncio.get_running_loop().call_later(every, self._first_beat)

    def _first_beat(self) -> None:
        self._task = asyncio.ensure_future(self._beats(self._started))

    async def stop(self) -> None:
        """No further beat; a beat in flight is cancelled and awaited."""
        self._timer.cancel()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
