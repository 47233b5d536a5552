"""Who cancels a turn, and how long it may take to end: ``TurnTask``, ``BackendTurns``.

``TurnTask`` owns one turn task's cancellation: ``terminate()`` starts a single cleanup grace
(never renewed), cancels the task (unless asked to let it end cooperatively) and cancels it
again when the grace expires; ``drain()`` waits within that grace. ``BackendTurns`` is the
remote half: it stops, at most once and within a time limit, the turn an external backend
(a coding agent's server) is still running for a room. ``ApprovalInterruptMixin`` wires both
into an adapter whose turns may wait on a person's approval.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from pydantic import Field, NonNegativeFloat

from band.client.streaming.client import ControlMode
from band.core.exceptions import InputNotAccepted
from band.core.protocols import AgentToolsProtocol
from band.core.retention import RetainedRoom
from band.core.retention.cleanup import spawn_owned
from band.core.turn import judge_detached_turn

__all__ = [
    "BACKEND_CANCEL_TIMEOUT_SECONDS",
    "CYCLE_CANCEL_GRACE_SECONDS",
    "TURN_SETTLE_GRACE_S",
    "ApprovalInterruptMixin",
    "BackendTurn",
    "BackendTurns",
    "TurnSettleTimeout",
    "TurnTask",
    "bind_turn_task",
    "finished_within_grace",
    "start_releasable_turn",
    "terminal_deadline",
]

logger = logging.getLogger(__name__)
CYCLE_CANCEL_GRACE_SECONDS = 1.0
BACKEND_CANCEL_TIMEOUT_SECONDS = 5.0
TURN_SETTLE_GRACE_S = 10.0
TurnSettleTimeout = Annotated[
    NonNegativeFloat,
    Field(description="Seconds a leave or stop lets the room's turn end before cancelling it."),
]
H = TypeVar("H")


def terminal_deadline() -> float:
    """The end of a cleanup grace starting now (loop time)."""
    return asyncio.get_running_loop().time() + CYCLE_CANCEL_GRACE_SECONDS


async def finished_within_grace(task: asyncio.Task[Any]) -> bool:
    """Wait up to one cleanup grace for ``task`` (not cancelling it); whether it ended."""
    await asyncio.wait({task}, timeout=CYCLE_CANCEL_GRACE_SECONDS)
    return task.done()


class TurnTask:
    """The cancellation owner of one concrete turn task."""

    def __init__(self, task: asyncio.Task[Any]) -> None:
        self.task = task
        task.add_done_callback(self._consume)  # a failure is the turn's, not an orphan's
        self.deadline: float | None = None
        self._cancel_sent = False
        self._expired = False
        self._timer: asyncio.Timeout | None = None
        self._cleanup_timer = False

    @staticmethod
    def _consume(task: asyncio.Task[Any]) -> None:
        if not task.cancelled():
            task.exception()

    def terminate(self, *, deadline: float | None = None, cooperative: bool = False) -> None:
        """Start the one cleanup grace; cancel now unless ``cooperative``."""
        if self.deadline is not None:
            return
        bound = deadline if deadline is not None else terminal_deadline()
        timer = self._timer
        if timer is not None:  # a provider timer must not cancel the cleanup itself
            when = timer.when()
            if self._cleanup_timer and when is not None:
                bound = min(bound, when)
            if timer.expired():
                self._cancel_sent = True
            else:
                timer.reschedule(None)
        self.deadline = bound
        asyncio.get_running_loop().call_at(bound, self._expire)
        if not cooperative:
            self._cancel()

    def retry(self, *, deadline: float) -> None:
        """Cancel again within a fresh grace once the last one expired (else ``terminate``)."""
        if not self._expired:
            self.terminate(deadline=deadline)
            return
        self.deadline, self._expired, self._cancel_sent = deadline, False, False
        asyncio.get_running_loop().call_at(deadline, self._expire)
        self._cancel()

    def _expire(self) -> None:
        self._expired = True
        self._cancel()

    def _cancel(self) -> None:
        if not self._cancel_sent and not self.task.done():
            self._cancel_sent = True
            self.task.cancel()

    async def drain(self) -> bool:
        """Wait, within the grace, for the task to end; whether it did."""
        if self.task.done():
            return True
        if self.deadline is None:
            raise RuntimeError("Turn draining requires termination")
        remaining = max(0.0, self.deadline - asyncio.get_running_loop().time())
        await asyncio.wait({self.task}, timeout=remaining)
        return self.task.done()

    @asynccontextmanager
    async def timed(
        self,
        timeout: float | None,  # noqa: ASYNC109 - band-sdk's signature
        *,
        cleanup: bool = False,
    ) -> AsyncIterator[asyncio.Timeout]:
        """A provider timeout inside the turn that termination overrides (no nesting)."""
        if self.deadline is not None:
            raise asyncio.CancelledError
        if self._timer is not None or asyncio.current_task() is not self.task:
            raise RuntimeError("A turn timer must run in its owner, without nesting")
        timer = asyncio.timeout(timeout)
        try:
            async with timer:
                self._timer, self._cleanup_timer = timer, cleanup
                yield timer
        finally:
            self._timer, self._cleanup_timer = None, False
            if self.deadline is not None:
                raise asyncio.CancelledError


def start_releasable_turn(
    retained: RetainedRoom,
    operation: Callable[[], Coroutine[Any, Any, None]],
    *,
    tools: AgentToolsProtocol,
    room_id: str,
) -> asyncio.Task[None]:
    """Run a turn that may outlive ``on_message`` as the room's owned work.

    Cancelled by the room's final disposal, it is judged then (nothing else answers for its
    message); an interrupt ends it on purpose.
    """

    async def run() -> None:
        try:
            await operation()
        except asyncio.CancelledError:
            if retained.closing:
                await judge_detached_turn(tools, room_id=room_id)
            raise

    return retained.start_owned(run)


def bind_turn_task(tools: object, task: asyncio.Task[Any]) -> TurnTask:
    """A ``TurnTask`` for ``task``, registered with the tools' runtime scope when they have one."""
    owner = TurnTask(task)
    register = getattr(tools, "register_turn_task", None)
    if callable(register):
        register(owner)
    return owner


@dataclass(eq=False)
class BackendTurn(Generic[H]):
    """One room's backend turn: its handle once known, and whether a stop was asked for."""

    handle: H | None = None
    stop_requested: bool = False


class BackendTurns(Generic[H]):
    """Each room's in-flight backend turn, and the one way to stop it.

    The adapter gives the cancel call for a handle; a turn is stopped at most once, never
    awaited by the caller, within ``BACKEND_CANCEL_TIMEOUT_SECONDS``; the room's next turn
    waits for that stop.
    """

    def __init__(self, cancel: Callable[[H], Awaitable[None]], *, provider: str) -> None:
        self._cancel = cancel
        self._provider = provider
        self._turns: dict[str, BackendTurn[H]] = {}
        self._stopping: dict[str, asyncio.Task[None]] = {}

    @asynccontextmanager
    async def running(self, room_id: str, handle: H | None = None) -> AsyncIterator[None]:
        """Register the room's turn; leaving by cancellation stops its backend."""
        await self.settled(room_id)
        turn: BackendTurn[H] = BackendTurn(handle)
        self._turns[room_id] = turn
        try:
            yield
        except asyncio.CancelledError:
            self.cancel(room_id)
            raise
        finally:
            if self._turns.get(room_id) is turn:
                del self._turns[room_id]
            if turn.stop_requested and turn.handle is None and not self.stopping(room_id):
                logger.info(
                    "%s turn in room %s ended before its backend revealed it; no stop sent",
                    self._provider,
                    room_id,
                )

    async def started(self, room_id: str, start: Awaitable[H | None]) -> H | None:
        """Await the call that starts the backend turn and bind its handle.

        The call outlives a cancelled caller, so an accepted turn is still stopped.
        """
        call = asyncio.ensure_future(start)
        try:
            handle = await asyncio.shield(call)
        except asyncio.CancelledError:
            self._spawn_stop(room_id, self._stop_when_started(room_id, call))
            raise
        if handle is not None:
            self.bind(room_id, handle)
        return handle

    def bind(self, room_id: str, handle: H) -> None:
        """Attach the revealed handle; a stop asked for earlier is sent now."""
        turn = self._turns.get(room_id)
        if turn is None or turn.handle is not None:
            return
        turn.handle = handle
        if turn.stop_requested:
            self._spawn_stop(room_id, self._cancel(handle))

    def cancel(self, room_id: str) -> None:
        """Start stopping the room's backend turn, once, without waiting."""
        turn = self._turns.get(room_id)
        if turn is None or turn.stop_requested:
            return
        turn.stop_requested = True
        if turn.handle is not None:
            self._spawn_stop(room_id, self._cancel(turn.handle))

    async def stop(self, room_id: str) -> None:
        """Stop the room's backend turn and wait until that stop settled."""
        self.cancel(room_id)
        await self.settled(room_id)

    def stopping(self, room_id: str) -> bool:
        return room_id in self._stopping

    async def settled(
        self,
        room_id: str,
        *,
        timeout: float | None = None,  # noqa: ASYNC109 - band-sdk's signature
    ) -> None:
        """Wait (up to ``timeout``) until the room's backend stop was sent or gave up."""
        task = self._stopping.get(room_id)
        if task is not None:
            await asyncio.wait({task}, timeout=timeout)

    async def drain(self) -> None:
        """Wait until every room's backend stop was sent or gave up."""
        if self._stopping:
            await asyncio.wait(set(self._stopping.values()))

    async def _stop_when_started(self, room_id: str, call: asyncio.Future[H | None]) -> None:
        try:
            handle = await call
        except Exception as error:
            logger.debug("%s turn start in room %s failed: %r", self._provider, room_id, error)
            return
        if handle is not None:
            await self._cancel(handle)

    def _spawn_stop(self, room_id: str, stop: Awaitable[None]) -> None:
        limit = BACKEND_CANCEL_TIMEOUT_SECONDS
        task = spawn_owned(
            asyncio.wait_for(stop, limit),
            label=f"{self._provider} backend stop for room {room_id} (limit {limit}s)",
        )
        self._stopping[room_id] = task
        task.add_done_callback(lambda done: self._forget(room_id, done))

    def _forget(self, room_id: str, task: asyncio.Task[None]) -> None:
        if self._stopping.get(room_id) is task:
            del self._stopping[room_id]


class ApprovalInterruptMixin:
    """On an interrupt: clear the room's pending approvals and end its turn's worker."""

    _turn_tasks: dict[str, TurnTask]

    @property
    def backend_turns(self) -> BackendTurns[Any] | None:
        return None

    def _clear_pending_approvals_for_room(self, room_id: str) -> None: ...

    def _turn_running(self, room_id: str) -> bool:
        owner = self._turn_tasks.get(room_id)
        if owner is not None and not owner.task.done():
            return True
        return self.backend_turns is not None and self.backend_turns.stopping(room_id)

    async def _admit_turn(self, room_id: str, provider: str) -> None:
        """Refuse new input while the room's turn, or its backend stop, still runs."""
        if self.backend_turns is not None:
            await self.backend_turns.settled(room_id, timeout=CYCLE_CANCEL_GRACE_SECONDS)
        if self._turn_running(room_id):
            raise InputNotAccepted(f"The room already has an active {provider} turn")

    async def _cancel_turn(self, room_id: str) -> None:
        owner = self._turn_tasks.get(room_id)
        if owner is not None:
            owner.terminate()
            await owner.drain()

    async def on_interrupt(self, room_id: str, mode: ControlMode) -> None:
        parent = getattr(super(), "on_interrupt", None)
        if parent is not None:
            await parent(room_id, mode)
        self._clear_pending_approvals_for_room(room_id)
        await self._cancel_turn(room_id)
