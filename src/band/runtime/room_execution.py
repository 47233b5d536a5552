"""``ExecutionContext``: the one serial loop of a room, for the ``Agent`` and ``AgentRuntime``.

How it works: docs/internals/sdk.md, "The room's serial loop".

Events for the room run one at a time in arrival order, each turn run by ``TurnRunner``; the
loop drains ``/next`` at start, on resync and on an idle timer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from band.core.types import is_contact_hub_turn
from band.platform.event import MessageEvent, PlatformEvent, ReconnectedEvent
from band.platform.turn_keys import turn_scope

from .config import SessionConfig
from .control import ControlMode
from .execution_types import Execution, ExecutionState, ResyncOutcome, ResyncRequest
from .history import claimed_on_push, delivery_processed, is_self_echo
from .resync import ResyncSchedule
from .room import RoomState
from .room_view import RoomView
from .turn_runner import (
    DEFERRED_OUTCOMES,
    ClaimRegistry,
    Outcome,
    RetryTracker,
    TurnOutcome,
    TurnRunner,
    TurnServices,
    message_event,
)

if TYPE_CHECKING:
    from band.platform.link import BandLink

__all__ = [
    "Execution",
    "ExecutionContext",
    "ExecutionHandler",
    "ExecutionState",
    "ResyncOutcome",
    "ResyncRequest",
]

log = logging.getLogger("band.runtime.execution")

ExecutionHandler = Callable[["ExecutionContext", PlatformEvent], Awaitable[None]]
MessageControl = Callable[["ExecutionContext", PlatformEvent], Awaitable[bool]]
ParticipantHook = Callable[[str, dict[str, Any]], Any]
StopHook = Callable[["ExecutionContext"], Awaitable[None]]

_STOP = object()
STOP_WHEN_IDLE = 5.0  # an idle loop ends at its next step; this only bounds a stuck drain


class ExecutionContext(RoomView):
    """The serial execution of one room (see the module docstring)."""

    def __init__(
        self,
        room_id: str,
        link: BandLink,
        on_execute: ExecutionHandler,
        config: SessionConfig | None = None,
        agent_id: str | None = None,
        on_participant_added: ParticipantHook | None = None,
        on_participant_removed: ParticipantHook | None = None,
        *,
        hub_room_id: str | None = None,
        claim_registry: ClaimRegistry | None = None,
        on_message_control: MessageControl | None = None,
        on_platform_stop: StopHook | None = None,
        services: TurnServices | None = None,
        tools_factory: Callable[[ExecutionContext], Any] | None = None,
    ) -> None:
        self.room_id = room_id
        self.link = link
        self.on_execute = on_execute
        self.config = config or (services.session if services else SessionConfig())
        self.on_participant_added = on_participant_added
        self.on_participant_removed = on_participant_removed
        self.on_message_control = on_message_control
        self.on_platform_stop = on_platform_stop
        self.hub_room_id = hub_room_id
        self.s = services or TurnServices(agent_id or link.agent_id, link.api, self.config)
        if claim_registry is not None:
            self.s.claims = claim_registry
        # How this room's turns get their tools (the Agent's adapter-aware factory).
        self.tools_factory = tools_factory
        self.room = RoomState(room_id, self.s.agent_id, self.s.rest, self.config)
        self.state = ExecutionState.STARTING
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._runner: TurnRunner | None = None
        self._closing = False
        self._stopped = False
        self._deferred: str | None = None  # a message the handler did not accept yet
        # Pushes whose claim came with them, taken while the room was idle: their turn skips
        # its /processing (after another turn, it claims again: that one moved the indicator).
        self._push_claims: set[str] = set()
        self._drain_queued = False
        cfg = self.config
        self._resync = ResyncSchedule(
            cfg.idle_resync_seconds, cfg.idle_resync_max_seconds, stopped=cfg.stopped_resync_seconds
        )

    # -- identity and state ------------------------------------------------------------------

    @property
    def agent_id(self) -> str:
        return self.s.agent_id

    @property
    def thread_id(self) -> str:
        """The room id (what frameworks with threads key their memory by)."""
        return self.room_id

    @property
    def retries(self) -> RetryTracker:
        return self.s.retries

    @property
    def is_processing(self) -> bool:
        return self._runner is not None

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def is_stopped(self) -> bool:
        """The platform stopped this room; it waits for play (or runnable work on ``/next``)."""
        return self._stopped

    @property
    def adapter_stop_notified(self) -> bool:
        """The running turn's stop already reached ``on_platform_stop`` (not told twice)."""
        return self._runner is not None and self._runner.stop_notified

    @property
    def is_llm_initialized(self) -> bool:
        """The model of this room's session has had its bootstrap (history, prompt)."""
        return not self.room.bootstrap

    def mark_llm_initialized(self) -> None:
        self.room.bootstrap_done()

    def note_turn_failure_reported(self) -> None:
        """The running turn told the room about its failure: no generic notice after it."""
        if self._runner is not None:
            self._runner.failure_reported = True

    async def claim_message(self, message_id: str) -> bool:
        """Mark the message processing; False when the platform did not confirm."""
        return (await self.s.rest.mark_processing(self.room_id, message_id)).ok

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            log.info("Starting ExecutionContext for room: %s", self.room_id)
            self._task = asyncio.create_task(self._run(), name=f"band-room-{self.room_id}")

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Stop taking work; wait for the current turn up to ``timeout`` seconds (None: not at
        all), else cancel it. True when no turn had to be cut."""
        self._closing = True
        if self._task is None:
            return True
        self._queue.put_nowait(_STOP)
        if timeout is None and self._runner is None:
            timeout = STOP_WHEN_IDLE  # nothing to wait for: just let the loop see _STOP
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout or 0)
            return True
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            return False

    async def on_event(self, event: PlatformEvent) -> None:
        """Queue a room event; roster changes apply at once, their hooks run in order."""
        if isinstance(event, ReconnectedEvent):
            await self.request_resync()
            return
        raw = event.raw or {}
        if event.type == "participant_added":
            self.room.participant_added(raw)
        elif event.type == "participant_removed":
            self.room.participant_removed(str(raw.get("id")))
        if not self._closing:
            self._queue.put_nowait(event)

    def push(self, event: MessageEvent) -> None:
        """A ``message_created`` from the socket (``on_event`` without a wait)."""
        if self._closing:
            return
        idle, raw = self._runner is None and self._queue.empty(), event.raw or {}
        if idle and claimed_on_push(raw, self.s.agent_id):
            self._push_claims.add(str(raw.get("id")))
        self._queue.put_nowait(event)

    async def request_resync(self) -> None:
        """Drain ``/next`` at the next opportunity (after a reconnect or a play)."""
        if not self._closing and not self._drain_queued:
            self._drain_queued = True
            self._queue.put_nowait(ResyncRequest())

    # -- controls ----------------------------------------------------------------------------

    def interrupt(self, *, kind: str = ControlMode.INTERRUPT) -> bool:
        """Cancel the running turn: ``interrupt`` consumes its message, ``stop`` leaves it open.

        True when a turn was running. ``play`` is ``resume_room()``'s job.
        """
        mode = ControlMode(kind)
        if mode is ControlMode.PLAY:
            raise ValueError("interrupt() does not take kind='play'; use resume_room()")
        if self._runner is None:
            return False
        self._runner.interrupt(mode)
        return True

    def stop_room(self) -> None:
        """Pause the room until play (or runnable work found by a probe) and stop its turn."""
        self._stopped = True
        self.interrupt(kind=ControlMode.STOP)

    async def resume_room(self) -> None:
        """Clear the pause and catch up through ``/next``."""
        if self._stopped:
            log.info("Room %s: resumed", self.room_id)
        self._stopped = False
        await self.request_resync()

    async def platform_stopped(self) -> None:
        """The platform answered the working indicator with stopped: pause, and tell once."""
        runner = self._runner
        self.stop_room()
        if runner is not None and not runner.stop_notified and self.on_platform_stop is not None:
            runner.stop_notified = True
            await self.on_platform_stop(self)

    # -- the loop ----------------------------------------------------------------------------

    async def _run(self) -> None:
        # The room's topics are joined before this first drain, so anything posted later
        # arrives as a push: one drain at admission is enough (no second poll per room).
        await self._drain()
        self.state = ExecutionState.IDLE
        clock = asyncio.get_running_loop()
        schedule = self._resync
        schedule.start(clock.time())
        while not self._closing:
            try:
                item = await self._next_item(schedule.delay(clock.time()))
            except TimeoutError:
                found = await self._drain() is ResyncOutcome.WORK
                schedule.complete(clock.time(), empty=not found, stopped=self._stopped)
                continue
            if item is _STOP:
                return
            if isinstance(item, ResyncRequest):
                self._drain_queued = False
                await self._drain()
            elif isinstance(item, MessageEvent):
                await self._handle(item.raw or {}, item, source="ws")
                schedule.reset(clock.time(), stopped=self._stopped)
            else:
                await self._other(item)

    async def _next_item(self, delay: float) -> Any:
        """The queue's next item, or TimeoutError once ``delay`` seconds passed (at 0: at once).

        The room's own task waits on the queue (no task per item, as ``wait_for`` made).
        """
        if delay <= 0:
            raise TimeoutError
        async with asyncio.timeout(delay):
            return await self._queue.get()

    async def _drain(self) -> ResyncOutcome:
        """Handle ``/next`` until 204, a repeated head, a stop or a refused input."""
        result = ResyncOutcome.EMPTY
        last: str | None = None
        while not self._closing:
            try:
                async with self.s.next_gate:
                    payload = await self.s.rest.get_next(self.room_id)
            except Exception as exc:
                log.warning("Room %s: /next failed: %s", self.room_id, exc)
                return ResyncOutcome.RETRY
            if payload is None or str(payload.get("id")) == last:
                break
            last = str(payload.get("id"))
            if self._stopped:
                log.info("Room %s: runnable work found while stopped; resuming", self.room_id)
                self._stopped = False
            result = ResyncOutcome.WORK
            turn = (await self._handle(payload, None, source="next")).turn_outcome
            if turn is TurnOutcome.PAUSED:
                return ResyncOutcome.STOPPED
            if turn in DEFERRED_OUTCOMES:
                return ResyncOutcome.BLOCKED
        return result

    async def _handle(
        self, payload: dict[str, Any], event: MessageEvent | None, *, source: str
    ) -> Outcome:
        s = self.s
        message_id = str(payload.get("id") or "")
        claimed = source == "ws" and message_id in self._push_claims
        self._push_claims.discard(message_id)
        if not message_id or is_self_echo(payload, s.agent_id):
            return Outcome.SKIPPED
        sender = {k: payload.get(k) for k in ("sender_type", "sender_id")}
        if event is not None and is_contact_hub_turn(**sender):
            self._runner = TurnRunner(s, self)
            try:
                return await self._runner.run_synthetic(event)
            finally:
                self._runner = None
        if message_id in s.retries.done and message_id not in s.retries.pending_acks:
            return Outcome.SKIPPED
        if delivery_processed(payload, s.agent_id):
            s.retries.done.add(message_id)
            return Outcome.SKIPPED
        if self._deferred is not None and message_id != self._deferred:
            await self._offer_control(payload, event)  # the deferred head goes first
            return Outcome.DEFERRED
        if message_id == self._deferred and source == "ws":
            # The held message's own push, queued while a drain already ran it: it is tried
            # again on a resync (a consumed control, play, reconnect, the idle timer), not
            # once more for the same arrival.
            return Outcome.DEFERRED
        if self._stopped and source == "ws":
            if claimed and s.session.enable_working_state:
                await s.rest.send_activity(self.room_id, False)  # the push's claim started it
            return Outcome.STOPPED  # left for /next after play
        self._runner = TurnRunner(s, self)
        self.state = ExecutionState.PROCESSING
        try:
            outcome = await self._runner.run_traced(payload, event, claimed=claimed)
        finally:
            self._runner = None
            self.state = ExecutionState.IDLE
        if outcome is Outcome.STOPPED:
            self._stopped = True
        self._deferred = message_id if outcome is Outcome.DEFERRED else None
        return outcome

    async def _offer_control(self, payload: dict[str, Any], event: MessageEvent | None) -> None:
        """While the queue is held, a message may still be a control the handler consumes."""
        if self.on_message_control is None or self._stopped:
            return
        s, message_id = self.s, str(payload["id"])
        event = event or message_event(self.room_id, payload)
        if not await self.claim_message(message_id):
            return
        await self.room.ensure_hydrated()
        try:
            with turn_scope(s.agent_id, message_id):
                consumed = await self.on_message_control(self, event)
        except Exception as exc:
            log.error("Room %s: control handling of %s failed", self.room_id, message_id)
            await s.rest.mark_failed(self.room_id, message_id, str(exc) or type(exc).__name__)
            return
        if consumed:
            await s.rest.mark_processed(self.room_id, message_id)
            s.retries.done.add(message_id)
            await self.request_resync()  # the held message may be accepted now

    async def _other(self, event: PlatformEvent) -> None:
        raw = event.raw or {}
        hook = {
            "participant_added": self.on_participant_added,
            "participant_removed": self.on_participant_removed,
        }.get(event.type)
        try:
            if hook is not None:
                result = hook(self.room_id, raw)
                if asyncio.iscoroutine(result):
                    await result
            await self.on_execute(self, event)
        except Exception:
            log.exception("Room %s: handler failed for %s", self.room_id, event.type)
