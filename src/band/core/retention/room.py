"""``RetainedRoom``: one room's residency: admission, acquisition, release and disposal.

How it works: docs/internals/sdk.md, "A room's residency".

It holds three callbacks (``acquire``, ``release``, ``dispose``), never a provider object;
work enters through ``use()`` (a lease) or ``own()``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from band.core.exceptions import CleanupIncompleteError, RoomClosingError
from band.core.retention.cleanup import (
    await_owned,
    cleanup_deadline,
    finish_by,
    report_owned,
    reporting,
    spawn_owned,
)
from band.core.retention.states import (
    UNKNOWN_ACTIVITY_REASON,
    ProviderActivity,
    ReleaseCause,
    Residency,
    stronger_cause,
)
from band.core.retention.transitions import _GONE, MAX_STEPS, RoomTransitions, logger

__all__ = ["RetainedRoom"]

Result = TypeVar("Result")


class RetainedRoom(RoomTransitions):
    """One room's residency, serialised (see the module docstring)."""

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

    async def _admitted_steps(self, step: Callable[[], Awaitable[bool]]) -> None:
        """Run ``step`` until it says done (True), at most ``MAX_STEPS`` times: each round
        checks admission first and joins a transition in flight instead of stepping."""
        for _ in range(MAX_STEPS):
            self.require_admission()
            transition = self._in_flight()
            if transition is not None:
                await self._join(transition)
            elif await step():
                return
        raise self._stalled()

    async def _settle(self) -> None:
        """Carry out a pending release first (once no lease holds the handle)."""
        await self._admitted_steps(self._settle_step)

    async def _settle_step(self) -> bool:
        if self._cause is None:
            return True
        if not self._leases:
            await self._join(self._start_release(self._cause, automatic=False))
        else:
            await self._until(lambda: not self._leases or self.closing)
        return False

    async def _ensure_resident(self) -> None:
        """The handle is resident (acquired or restored when suspended)."""
        await self._admitted_steps(self._resident_step)

    async def _resident_step(self) -> bool:
        if self._state == Residency.RESIDENT:
            return True
        if self._state == Residency.SUSPENDED and self._cause is None:
            await self._join(self._start_acquire(), initiator=True)
            return False
        raise RuntimeError(f"Room {self.room_id} cleanup pending: {self._cause} release")

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
