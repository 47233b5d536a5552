"""``RoomExecutions``: each room's execution brought to what the agent wants of that room.

A room is wanted (admitted) or not (withdrawn). One convergence per room at a time builds
and starts its execution, delivers the events held while it started, and routes it; or
stops it, runs the room's ``release`` cleanup and forgets it. A failed step leaves the
execution owned: the next signal (admit, withdraw, ``converge``) retries it. Waiters await
the room's ``Convergence`` (True when nothing had to be cut short).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from band.platform.event import PlatformEvent

__all__ = ["Convergence", "Room", "RoomExecutions", "RoomState", "request_resync"]

logger = logging.getLogger(__name__)
MAX_STEPS_PER_SIGNAL = 3
MAX_HELD_EVENTS = 256


class RoomState(StrEnum):
    IDLE = "idle"
    STARTING = "starting"
    SERVING = "serving"
    RETIRING = "retiring"


def _new_future() -> asyncio.Future[bool]:
    future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
    future.add_done_callback(lambda done: done.cancelled() or done.exception())
    return future


@dataclass
class Convergence:
    """One attempt to bring a room to its intent; waiters await ``done``."""

    done: asyncio.Future[bool] = field(default_factory=_new_future)
    graceful: bool = True


@dataclass
class Room:
    """A room's intent, the execution it owns (until its cleanup succeeds) and held events."""

    wanted: bool = False
    generation: int = 0
    state: RoomState = RoomState.IDLE
    execution: Any = None
    stop_timeout: float | None = None
    steps_left: int = MAX_STEPS_PER_SIGNAL
    step: asyncio.Task[None] | None = None
    convergence: Convergence | None = None
    held: deque[PlatformEvent] = field(default_factory=lambda: deque(maxlen=MAX_HELD_EVENTS))


async def request_resync(room_id: str, execution: Any) -> None:
    """Ask an execution to check ``/next`` again, when it can (failures are logged)."""
    method = getattr(execution, "request_resync", None)
    if method is None:
        logger.debug("Execution for room %s cannot resync", room_id)
        return
    try:
        await method()
    except Exception as exc:
        logger.warning("Failed to request resync for room %s: %s", room_id, exc)


class RoomExecutions:
    """Every room's execution, converged to its intent; only ``routed`` ones get work."""

    def __init__(
        self, *, build: Callable[[str], Any], release: Callable[[str], Awaitable[None]]
    ) -> None:
        self.routed: dict[str, Any] = {}
        self.accepting = True
        self._closing_timeout: float | None = None
        self._rooms: dict[str, Room] = {}
        self._build = build
        self._release = release

    def close(self, *, timeout: float | None) -> None:
        """Admit no more rooms; every retirement from now on waits up to ``timeout``."""
        self.accepting = False
        self._closing_timeout = timeout

    def room_ids(self) -> list[str]:
        return list(self._rooms)

    def wanted(self, room_id: str) -> bool:
        room = self._rooms.get(room_id)
        return room is not None and room.wanted

    def serving(self, room_id: str) -> bool:
        room = self._rooms.get(room_id)
        return (
            room is not None
            and room.execution is not None
            and (self.routed.get(room_id) is room.execution)
        )

    def pending(self, room_id: str) -> asyncio.Future[bool] | None:
        room = self._rooms.get(room_id)
        return room.convergence.done if room and room.convergence else None

    @property
    def unsettled(self) -> list[str]:
        """Rooms owning an execution that is not serving (starting, or cleanup pending)."""
        return [r for r, room in self._rooms.items() if room.execution and not self.serving(r)]

    async def admit(self, room_id: str) -> Any:
        """Admit a room and wait for its execution; None when an old one is retired first."""
        if not self.accepting:
            raise RuntimeError("Agent runtime is stopping or stopped")
        if self.serving(room_id):
            return self.routed[room_id]
        previous = self._rooms.get(room_id)
        cleanup_first = previous is not None and previous.execution is not None
        pending = self.request_admission(room_id)
        if cleanup_first:
            return None
        if pending is not None:
            await asyncio.shield(pending)
        return self.routed.get(room_id)

    def request_admission(self, room_id: str) -> asyncio.Future[bool] | None:
        room = self._rooms.setdefault(room_id, Room())
        room.wanted = True
        return self._signal(room_id, room)

    def hold(self, room_id: str, event: PlatformEvent) -> None:
        """Keep an event for a wanted room until its execution is routed."""
        room = self._rooms.get(room_id)
        if room is None or not room.wanted:
            logger.warning("No execution for room %s, event dropped", room_id)
            return
        if len(room.held) == MAX_HELD_EVENTS:
            logger.warning("Room %s held %d events; dropping the oldest", room_id, MAX_HELD_EVENTS)
        room.held.append(event)
        self._signal(room_id, room)

    def withdraw(self, room_id: str) -> None:
        """Stop routing a room now and start its cleanup."""
        room = self._rooms.get(room_id)
        if room is not None and room.wanted:
            self._fence(room_id, room)
            self._signal(room_id, room)

    def converge(self, room_id: str) -> None:
        """Retry a room toward its intent (after a failed step)."""
        room = self._rooms.get(room_id)
        if room is not None:
            self._signal(room_id, room)

    def converge_unserved(self) -> None:
        for room_id, room in list(self._rooms.items()):
            if not self.serving(room_id):
                self._signal(room_id, room)

    async def destroy(self, room_id: str, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Withdraw a room and wait for its cleanup (a failure raises; it stays owned)."""
        room = self._rooms.get(room_id)
        if room is None:
            return True
        self._fence(room_id, room)
        room.stop_timeout = timeout
        pending = self._signal(room_id, room)
        return True if pending is None else await asyncio.shield(pending)

    def _fence(self, room_id: str, room: Room) -> None:
        self.routed.pop(room_id, None)
        room.wanted = False
        room.generation += 1

    def _settled(self, room_id: str, room: Room) -> bool:
        return (room.wanted and self.serving(room_id) and not room.held) or (
            not room.wanted and room.execution is None
        )

    def _signal(self, room_id: str, room: Room) -> asyncio.Future[bool] | None:
        if room.convergence is None:
            if self._settled(room_id, room):
                return None
            room.convergence = Convergence()
        room.steps_left = MAX_STEPS_PER_SIGNAL
        if room.step is None:
            room.step = asyncio.create_task(self._run(room_id, room))
        return room.convergence.done

    async def _run(self, room_id: str, room: Room) -> None:
        convergence = room.convergence
        assert convergence is not None  # nosec B101 # narrows for mypy: a hosted room has one
        try:
            while not self._settled(room_id, room) and room.steps_left > 0:
                room.steps_left -= 1
                if room.wanted and room.execution is None and self.accepting:
                    await self._start(room_id, room)
                elif room.wanted and room.execution is not None:
                    await self._deliver_held(room_id, room)
                elif not room.wanted and room.execution is not None:
                    await self._retire(room_id, room, convergence)
                else:
                    break
        except Exception as exc:
            room.state = RoomState.IDLE
            logger.warning("Room %s did not converge: %s", room_id, exc)
            if not convergence.done.done():
                convergence.done.set_exception(exc)
        finally:
            room.step = None
            if room.convergence is convergence:
                room.convergence = None
            if not convergence.done.done():
                convergence.done.set_result(convergence.graceful)
            if not room.wanted and room.execution is None:
                self._rooms.pop(room_id, None)

    async def _start(self, room_id: str, room: Room) -> None:
        generation = room.generation
        room.state = RoomState.STARTING
        room.execution = execution = self._build(room_id)
        await execution.start()
        if generation == room.generation and room.wanted:
            self.routed[room_id] = execution
            room.state = RoomState.SERVING
        await self._deliver_held(room_id, room)

    async def _deliver_held(self, room_id: str, room: Room) -> None:
        execution = self.routed.get(room_id)
        while execution is not None and room.held:
            await execution.on_event(room.held.popleft())

    async def _retire(self, room_id: str, room: Room, convergence: Convergence) -> None:
        room.state = RoomState.RETIRING
        room.held.clear()
        timeout = room.stop_timeout if self.accepting else self._closing_timeout
        graceful = await room.execution.stop(timeout)
        convergence.graceful = convergence.graceful and bool(graceful)
        await self._release(room_id)
        room.execution = None
        room.state = RoomState.IDLE
