"""``RetainedRoom``: one room's residency: admission, acquisition, release and disposal.

The room holds no provider object, only three callbacks: ``acquire(generation, resume)``
opens the handle (``resume`` is true after an idle release: restore the same native
identity), ``release(cause)`` closes it and returns ``ReleaseOutcome`` (``BUSY`` refuses an
idle release and leaves the handle intact), ``dispose()`` erases what remains after the
final release. Transitions run one at a time as owned tasks, so a caller that gives up or is
cancelled never leaves one half done; callers wait at most ``transition_timeout_s``.

Work enters through ``use()`` (a lease on the live handle, acquiring it first when
suspended) or ``own()`` (detached work). A failed acquisition, or ``recover()`` after a
crash, releases the handle for ``RECOVERY`` once no lease holds it; the next use acquires a
new generation. Observations from an older generation carry no authority.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, Protocol, TypeVar

from band.core.exceptions import CleanupIncompleteError, RoomClosingError
from band.core.retention.cleanup import (
    await_owned,
    cleanup_deadline,
    finish_by,
    report_owned,
    reporting,
    spawn_owned,
)
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

__all__ = ["RetainedRoom"]

logger = logging.getLogger(__name__)
Result = TypeVar("Result")
MAX_STEPS = 6  # transitions one operation may wait through before it calls the room stalled
_GONE = (Residency.SUSPENDED, Residency.CLOSED)


class _Owner(Protocol):
    """What a room needs of its ``RoomRetention``."""

    config: RoomRetentionConfig
    clock: RetentionClock
    settle_grace_s: float
    stopping: bool

    def reschedule(self) -> None: ...

    def _forget(self, room: RetainedRoom) -> None: ...


class RetainedRoom:
    """One room's residency, serialised (see the module docstring)."""

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

    # -- provider observations --------------------------------------------------------

    def observe(self, activity: ProviderActivity, *, generation: int, reason: str = "") -> bool:
        """Record what the provider says of its own work; False from a stale residency."""
        if not self.has_authority(generation):
            return False
        changed = self._activity != activity
        self._activity = activity
        unknown = activity == ProviderActivity.UNKNOWN
        self._reason = reason or (UNKNOWN_ACTIVITY_REASON if unknown else "")
        self._schedule(reset=changed)
        return True

    def recover(self, *, generation: int, reason: str) -> bool:
        """Retire a crashed residency: RECOVERY release once unleased; False when stale."""
        if not self.has_authority(generation):
            return False
        self._retire_for_recovery()
        self._activity = ProviderActivity.UNKNOWN
        self._reason = self._error = reason
        self._schedule()
        self._start_requested_recovery()
        return True

    # -- work -------------------------------------------------------------------------

    def own(self, task: asyncio.Task[Any]) -> None:
        """Enroll detached work (it blocks idle release; disposal settles it)."""
        try:
            self.require_admission()
        except RoomClosingError:
            task.cancel()
            raise
        self._owned.add(task)
        task.add_done_callback(self._disown)
        self._schedule()

    def start_owned(
        self, operation: Callable[[], Coroutine[Any, Any, Result]]
    ) -> asyncio.Task[Result]:
        """Run ``operation`` as owned work that starts only once enrolled."""
        enrolled = asyncio.get_running_loop().create_future()

        async def run() -> Result:
            await enrolled
            return await operation()

        task = asyncio.create_task(run())
        self.own(task)
        enrolled.set_result(None)
        return task

    def _disown(self, task: asyncio.Task[Any]) -> None:
        self._owned.discard(task)
        self._unwinding.discard(task)
        self._schedule()

    @asynccontextmanager
    async def use(
        self, prepare: Callable[[], Awaitable[None]] | None = None
    ) -> AsyncIterator[None]:
        """One operation on the live handle: earlier transitions settle, then a lease.

        ``prepare`` runs under the lease before the handle is acquired (or restored).
        """
        self.require_admission()
        holder = asyncio.current_task()
        self._holders[holder] += 1
        self._schedule()
        try:
            await self._settle()
            self.require_admission()
            self._leases += 1
            try:
                if prepare is not None:
                    await prepare()
                await self._ensure_resident()
                yield
            finally:
                self._leases -= 1
        finally:
            self._holders[holder] -= 1
            if self._holders[holder] <= 0:
                del self._holders[holder]
            self._schedule()
            self._start_requested_recovery()

    async def _settle(self) -> None:
        for _ in range(MAX_STEPS):
            self.require_admission()
            transition = self._in_flight()
            if transition is not None:
                await self._join(transition)
            elif self._cause is None:
                return
            elif not self._leases:
                await self._join(self._start_release(self._cause, automatic=False))
            else:
                await self._until(lambda: not self._leases or self.closing)
        raise self._stalled()

    async def _ensure_resident(self) -> None:
        for _ in range(MAX_STEPS):
            self.require_admission()
            transition = self._in_flight()
            if transition is not None:
                await self._join(transition)
            elif self._state == Residency.RESIDENT:
                return
            elif self._state == Residency.SUSPENDED and self._cause is None:
                await self._join(self._start_acquire(), initiator=True)
            else:
                raise RuntimeError(f"Room {self.room_id} cleanup pending: {self._cause} release")
        raise self._stalled()

    async def wait_released(self, *, generation: int) -> None:
        """Wait for a requested retirement of ``generation`` (bounded; cleanup stays owned)."""
        if generation > self._generation:
            raise ValueError("Cannot wait for a future residency")
        if self.enrolls(asyncio.current_task()):
            raise CleanupIncompleteError(
                f"Room {self.room_id} release waits for the calling work to finish"
            )
        retiring = self._cause in (ReleaseCause.RECOVERY, ReleaseCause.FINAL)
        current = generation == self._generation and self._state not in _GONE
        if current and not self.closing and not retiring:
            raise ValueError("Residency has no retirement request")
        await finish_by(
            cleanup_deadline(self._owner.config),
            self._released(generation),
            what=f"Room {self.room_id} release",
        )

    async def _released(self, generation: int) -> None:
        for _ in range(MAX_STEPS):
            if generation < self._generation or self._state in _GONE:
                return
            transition = self._in_flight()
            if self.closing:
                disposal = self._begin_disposal()
                if disposal is not None:
                    await report_owned(disposal, None)
                return
            if transition is not None:
                await await_owned({transition}, None)
            elif self._leases:
                await self._until(lambda: not self._leases)
            elif self._cause is not None:
                await report_owned(self._start_release(self._cause, automatic=False), None)
            else:
                raise RuntimeError(f"Room {self.room_id} retirement is no longer pending")
        raise self._stalled()

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

    # -- disposal ---------------------------------------------------------------------

    def _spare_requester(self) -> bool:
        """Enrolled work asking for cleanup is not cancelled by it (it is told to unwind)."""
        current = asyncio.current_task()
        if not self.enrolls(current):
            return False
        if current is not None and current in self._owned:
            self._unwinding.add(current)
        return True

    async def dispose(self) -> None:
        """Close admission, settle accepted work, release FINAL, then ``dispose()``.

        Bounded by ``transition_timeout_s``; an unfinished disposal stays owned for a retry.
        """
        from_inside = self._spare_requester()
        disposal = self._begin_disposal()
        if disposal is None:
            return
        if from_inside:
            raise CleanupIncompleteError(
                f"Room {self.room_id} disposal waits for the calling work to finish"
            )
        await report_owned(disposal, self._owner.config.transition_timeout_s)

    def _begin_disposal(self) -> asyncio.Task[None] | None:
        self._closing = True
        self._cause = stronger_cause(self._cause, ReleaseCause.FINAL)
        self._schedule()
        if self._state == Residency.CLOSED:
            return None
        if self._disposal is None or self._disposal.done():
            self._disposal = spawn_owned(self._run_dispose(), label=f"Room {self.room_id} disposal")
        return self._disposal

    async def _run_dispose(self) -> None:
        await self._settle_accepted()
        if self._transition is not None:
            await asyncio.wait({self._transition})
        if self._state != Residency.SUSPENDED:
            release = self._start_release(ReleaseCause.FINAL, automatic=False)
            with reporting({release}):
                await release
        self._state = Residency.DISPOSING
        try:
            await self._dispose()
        except BaseException as error:
            self._state, self._error = Residency.SUSPENDED, f"{type(error).__name__}: {error}"
            raise
        else:
            self._state, self._error = Residency.CLOSED, None
            self._owner._forget(self)
        finally:
            self._schedule()

    async def _settle_accepted(self) -> None:
        """Let accepted work finish within the owner's grace, then cancel the rest, once."""
        if not self._work_cancelled:
            grace = self._owner.settle_grace_s
            if grace and self._cancellable():
                expired: list[bool] = []

                def expire() -> None:
                    expired.append(True)
                    self._wake()

                clock = self._owner.clock
                timer = clock.call_at(clock.now() + grace, expire)
                try:
                    await self._until(lambda: not self._accepted or bool(expired))
                finally:
                    timer.cancel()
                if self._accepted:
                    logger.warning(
                        "Room %s: accepted work still running after %ss; cancelling it",
                        self.room_id,
                        grace,
                    )
            self._work_cancelled = True
            for task in self._cancellable():
                task.cancel()
            if self._state == Residency.ACQUIRING and self._transition is not None:
                self._transition.cancel()
        await self._until(lambda: not self._accepted)

    def _cancellable(self) -> set[asyncio.Task[Any]]:
        return {t for t in self._owned - self._unwinding if not t.cancelling()}
