"""``RoomTransitions``: a retained room's state and the transitions that change it.

The residency state (generation, leases, accepted work, provider activity, pending release
cause), the acquire and release transitions run one at a time as owned tasks, and the idle
deadline. ``room.RetainedRoom`` builds admission, waiting and disposal on it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from band.core.exceptions import RoomClosingError
from band.core.retention.cleanup import await_owned, spawn_owned
from band.core.retention.clock import RetentionClock
from band.core.retention.config import RoomRetentionConfig
from band.core.retention.states import (
    BUSY_ACTIVITY_REASON,
    UNKNOWN_ACTIVITY_REASON,
    ProviderActivity,
    ReleaseCause,
    ReleaseOutcome,
    Residency,
    RetentionSnapshot,
    stronger_cause,
)

__all__ = ["MAX_STEPS", "RoomTransitions"]

logger = logging.getLogger("band.core.retention.room")
MAX_STEPS = 6  # transitions one operation may wait through before it calls the room stalled
_GONE = (Residency.SUSPENDED, Residency.CLOSED)


class _Owner(Protocol):
    """What a room needs of its ``RoomRetention``."""

    config: RoomRetentionConfig
    clock: RetentionClock
    settle_grace_s: float
    stopping: bool

    def reschedule(self) -> None: ...

    def _forget(self, room: Any) -> None: ...  # its RetainedRoom (a subclass of this one)


class RoomTransitions:
    """A room's residency state and its serialised transitions (see the module docstring)."""

    def __init__(
        self,
        owner: _Owner,
        room_id: str,
        acquire: Callable[[int, bool], Awaitable[None]],
        release: Callable[[ReleaseCause], Awaitable[ReleaseOutcome]],
        dispose: Callable[[], Awaitable[None]],
    ) -> None:
        self._owner = owner
        self.room_id = room_id
        self._acquire, self._release, self._dispose = acquire, release, dispose
        self._state = Residency.SUSPENDED
        self._generation = 0
        self._leases = 0
        self._holders: Counter[asyncio.Task[Any] | None] = Counter()
        self._owned: set[asyncio.Task[Any]] = set()
        self._unwinding: set[asyncio.Task[Any]] = set()
        self._activity = ProviderActivity.UNKNOWN
        self._reason = UNKNOWN_ACTIVITY_REASON
        self._deadline: float | None = None
        self._error: str | None = None
        self._cause: ReleaseCause | None = None
        self._recover_when_unleased = False
        self._resume = False
        self._closing = False
        self._work_cancelled = False
        self._transition: asyncio.Task[None] | None = None
        self._disposal: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    # -- what observers see ---------------------------------------------------------

    @property
    def snapshot(self) -> RetentionSnapshot:
        pending = None if self._state == Residency.CLOSED else self._cause
        return RetentionSnapshot(
            state=self._state,
            generation=self._generation,
            leases=self._leases,
            accepted=self._accepted,
            provider_activity=self._activity,
            reason=self._reason,
            deadline=self._deadline,
            pending_release=pending,
            pending_cleanup=self._state == Residency.CLEANUP_PENDING
            or pending in (ReleaseCause.RECOVERY, ReleaseCause.FINAL),
            error=self._error,
        )

    @property
    def _accepted(self) -> int:
        return len(self._owned | set(self._holders))

    @property
    def closing(self) -> bool:
        """Admission is closed for good (the room is disposed or its owner stops)."""
        return self._closing or self._owner.stopping

    @property
    def generation(self) -> int:
        """The current residency; each acquisition starts a new one."""
        return self._generation

    def has_authority(self, generation: int) -> bool:
        """Whether residency ``generation`` may still observe or act."""
        return (
            generation == self._generation
            and not self.closing
            and self._cause in (None, ReleaseCause.IDLE)
            and self._state not in _GONE
        )

    def may_finish(self, generation: int) -> bool:
        """Whether accepted work may still hear from ``generation`` (also while closing)."""
        return self.has_authority(generation) or (
            self.closing and generation == self._generation and self._state == Residency.RESIDENT
        )

    def enrolls(self, task: asyncio.Task[Any] | None) -> bool:
        """Whether ``task`` is accepted work this room's disposal would wait for."""
        return task in self._owned or task in self._holders

    def require_admission(self) -> None:
        """Refuse new work once the room is closing."""
        if self.closing:
            raise RoomClosingError(f"Room {self.room_id} is closing")

    # -- transitions ------------------------------------------------------------------

    def _in_flight(self) -> asyncio.Task[None] | None:
        transition = self._transition
        return transition if transition is not None and not transition.done() else None

    def _stalled(self) -> RuntimeError:
        logger.error("Room %s did not settle within %d steps", self.room_id, MAX_STEPS)
        return RuntimeError(f"Room {self.room_id} did not settle within {MAX_STEPS} steps")

    async def _join(self, transition: asyncio.Task[None], *, initiator: bool = False) -> None:
        """Wait (bounded) for a transition without cancelling it."""
        timeout = self._owner.config.transition_timeout_s
        try:
            done = await await_owned({transition}, timeout)
        except asyncio.CancelledError:
            if initiator:
                self._abandon_acquisition(transition)
            raise
        if not done:
            if initiator:
                self._abandon_acquisition(transition)
                raise TimeoutError(f"Room {self.room_id} start abandoned after {timeout}s")
            raise TimeoutError(f"Room {self.room_id} transition still running after {timeout}s")
        if transition.cancelled():
            self.require_admission()
            return
        error = transition.exception()
        if error is not None:
            raise error

    def _retire_for_recovery(self) -> None:
        self._cause = stronger_cause(self._cause, ReleaseCause.RECOVERY)
        self._recover_when_unleased = True
        if self._state == Residency.RESIDENT:
            self._state = Residency.CLEANUP_PENDING

    def _abandon_acquisition(self, transition: asyncio.Task[None]) -> None:
        self._retire_for_recovery()
        if self._state == Residency.ACQUIRING and self._cause == ReleaseCause.RECOVERY:
            logger.warning(
                "Room %s: abandoned acquisition (generation %s) cancelled for recovery",
                self.room_id,
                self._generation,
            )
            transition.cancel()

    def _spawn(self, operation: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = spawn_owned(operation, label=f"Room {self.room_id} residency transition")
        task.add_done_callback(lambda _: self._start_requested_recovery())
        self._transition = task
        return task

    def _start_acquire(self) -> asyncio.Task[None]:
        self._generation += 1
        self._state = Residency.ACQUIRING
        self._activity, self._reason = ProviderActivity.UNKNOWN, UNKNOWN_ACTIVITY_REASON
        return self._spawn(self._run_acquire())

    async def _run_acquire(self) -> None:
        try:
            await self._acquire(self._generation, self._resume)
        except BaseException as error:
            self._retire_for_recovery()
            self._failed(error)
            raise
        else:
            if self._cause is None:
                self._state, self._resume, self._error = Residency.RESIDENT, False, None
            else:
                self._state = Residency.CLEANUP_PENDING
        finally:
            self._schedule(reset=True)

    def _start_requested_recovery(self) -> None:
        if (
            self._recover_when_unleased
            and self._cause == ReleaseCause.RECOVERY
            and self._state == Residency.CLEANUP_PENDING
            and not self._leases
            and not self._closing
            and self._in_flight() is None
        ):
            self._start_release(ReleaseCause.RECOVERY, automatic=False)

    def _start_release(self, cause: ReleaseCause, *, automatic: bool) -> asyncio.Task[None]:
        if cause == ReleaseCause.RECOVERY:
            self._recover_when_unleased = False
        self._cause = stronger_cause(self._cause, cause)
        previous, self._state, self._deadline = self._state, Residency.SUSPENDING, None
        return self._spawn(self._run_release(cause, previous, automatic=automatic))

    def _idle_release_allowed(self, automatic: bool) -> bool:
        return (
            self._cause == ReleaseCause.IDLE
            and not self.closing
            and not self._leases
            and not (automatic and self._accepted)
            and self._activity == ProviderActivity.QUIESCENT
        )

    async def _run_release(
        self, cause: ReleaseCause, previous: Residency, *, automatic: bool
    ) -> None:
        try:
            if cause == ReleaseCause.IDLE and not self._idle_release_allowed(automatic):
                self._keep_resident(intact=previous == Residency.RESIDENT)
                if not automatic:
                    self.require_admission()
                    raise RuntimeError(
                        f"Room {self.room_id} cleanup pending: provider activity is "
                        f"{self._activity}; {self._reason or 'waiting for quiescence'}"
                    )
                return
            try:
                outcome = await self._release(cause)
            except BaseException as error:
                self._failed(error)
                raise
            if cause == ReleaseCause.IDLE and outcome == ReleaseOutcome.BUSY:
                self._activity, self._reason = ProviderActivity.ACTIVE, BUSY_ACTIVITY_REASON
                self._keep_resident(intact=True)
            elif outcome == ReleaseOutcome.RELEASED:
                self._released_for(cause)
            else:
                invalid = RuntimeError(f"{outcome!r} is not a valid {cause} release result")
                self._failed(invalid)
                raise invalid
        finally:
            self._schedule(reset=True)

    def _keep_resident(self, *, intact: bool) -> None:
        if self._cause == ReleaseCause.IDLE and intact:
            self._cause, self._state = None, Residency.RESIDENT
        else:
            self._state = Residency.CLEANUP_PENDING

    def _released_for(self, cause: ReleaseCause) -> None:
        """A confirmed release; a stronger cause that arrived meanwhile stays pending."""
        self._error = None
        pending = self._cause
        if pending is not None and stronger_cause(cause, pending) != cause:
            self._state, self._resume = Residency.CLEANUP_PENDING, False
            return
        self._state = Residency.SUSPENDED
        self._resume = self._resume or cause == ReleaseCause.IDLE
        if self._cause != ReleaseCause.FINAL:
            self._cause = None

    def _failed(self, error: BaseException) -> None:
        self._state = Residency.CLEANUP_PENDING
        self._error = f"{type(error).__name__}: {error}"

    # -- idle deadline and wake-ups ----------------------------------------------------

    def _schedule(self, *, reset: bool = False) -> None:
        timeout = self._owner.config.idle_timeout_s
        if timeout is None or not self._idle_eligible:
            self._deadline = None
        elif reset or self._deadline is None:
            self._deadline = self._owner.clock.now() + timeout
        self._wake()
        self._owner.reschedule()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def _idle_eligible(self) -> bool:
        candidate = (self._state, self._cause) in (
            (Residency.RESIDENT, None),
            (Residency.CLEANUP_PENDING, ReleaseCause.IDLE),
        )
        return (
            candidate
            and not self.closing
            and not self._leases
            and not self._accepted
            and self._activity == ProviderActivity.QUIESCENT
        )

    async def _until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            await self._changed.wait()

    def _start_idle_release(self) -> None:
        self._start_release(ReleaseCause.IDLE, automatic=True)
