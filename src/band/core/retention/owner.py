"""``RoomRetention``: the adapter-wide owner of its rooms' residency, idle timer and stop.

One timer per adapter, armed for the earliest idle deadline of any room and re-armed on every
change: nothing polls. ``stop()`` disposes every room under one reporting deadline; a stop is
final for the owner, and ``renewed()`` hands a restarted adapter a fresh one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial

from band.core.exceptions import CleanupIncompleteError, RoomClosingError
from band.core.retention.cleanup import await_owned, rejoin_owned, report_owned, task_failure
from band.core.retention.clock import Cancellable, MonotonicClock, RetentionClock
from band.core.retention.config import RoomRetentionConfig
from band.core.retention.room import RetainedRoom
from band.core.retention.states import ReleaseCause, ReleaseOutcome

__all__ = ["RoomRetention"]


class RoomRetention:
    """The rooms of one adapter; ``settle_grace_s`` lets accepted work end before disposal."""

    def __init__(
        self,
        config: RoomRetentionConfig,
        *,
        clock: RetentionClock | None = None,
        settle_grace_s: float = 0.0,
    ) -> None:
        self.config = config
        self.clock = clock or MonotonicClock()
        self.settle_grace_s = settle_grace_s
        self.stopping = False
        self._rooms: dict[str, RetainedRoom] = {}
        self._timer: Cancellable | None = None
        self._shutdown: asyncio.Task[None] | None = None

    def register(
        self,
        room_id: str,
        *,
        acquire: Callable[[int, bool], Awaitable[None]],
        release: Callable[[ReleaseCause], Awaitable[ReleaseOutcome]],
        dispose: Callable[[], Awaitable[None]],
    ) -> RetainedRoom:
        """The residency of ``room_id`` (one per room)."""
        self.require_admission()
        if room_id in self._rooms:
            raise ValueError(f"Room {room_id} already has a residency owner")
        room = RetainedRoom(self, room_id, acquire, release, dispose)
        self._rooms[room_id] = room
        self.reschedule()
        return room

    def require_admission(self) -> None:
        """Refuse new work once stopping, before it claims provider resources."""
        if self.stopping:
            raise RoomClosingError("Room retention is stopping")

    def _forget(self, room: RetainedRoom) -> None:
        if self._rooms.get(room.room_id) is room:
            del self._rooms[room.room_id]
        self.reschedule()

    def reschedule(self) -> None:
        """Arm the timer for the earliest idle deadline, if any room has one."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadlines = [r._deadline for r in self._rooms.values() if r._deadline is not None]
        if deadlines:
            due = min(deadlines)
            self._timer = self.clock.call_at(due, partial(self._release_due_rooms, due))

    def _release_due_rooms(self, due: float) -> None:
        # Compared with the armed deadline, not now: a loop may fire a timer slightly early.
        self._timer = None
        for room in tuple(self._rooms.values()):
            if room._deadline is not None and room._deadline <= due:
                room._start_idle_release()
        self.reschedule()

    async def stop(self) -> None:
        """Dispose every room; failures stay owned for a retried stop to join."""
        from_inside = [room._spare_requester() for room in tuple(self._rooms.values())]
        self.stopping = True
        self.reschedule()
        self._shutdown = shutdown = rejoin_owned(
            self._shutdown, self._run_stop, label="Room retention shutdown"
        )
        if any(from_inside):
            raise CleanupIncompleteError(
                "Room retention shutdown waits for the calling work to finish"
            )
        await report_owned(shutdown, self.config.transition_timeout_s)

    def renewed(self) -> RoomRetention:
        """This owner while it serves; after a completed stop, a fresh one with its settings."""
        if not self.stopping:
            return self
        if self._rooms:
            raise CleanupIncompleteError(
                "Room retention cannot renew while rooms from its stop remain"
            )
        return RoomRetention(self.config, clock=self.clock, settle_grace_s=self.settle_grace_s)

    async def _run_stop(self) -> None:
        disposals = [
            task
            for room in tuple(self._rooms.values())
            if (task := room._begin_disposal()) is not None
        ]
        if disposals:
            await await_owned(disposals, None)
        failures = [error for task in disposals if (error := task_failure(task)) is not None]
        if failures:
            raise BaseExceptionGroup("Room cleanup remains incomplete", failures)
