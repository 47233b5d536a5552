"""One agent process per room: started on demand, reported once when it dies, restarted.

A turn that sees its process die reports the failure itself and calls :meth:`discard`; a
process found dead between turns is announced once by the next message, which then starts
a fresh one. Starts are serialised per room, so two messages never spawn two processes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Generic, Protocol, TypeVar

from band.core.exceptions import BandError

__all__ = ["AgentProcess", "RoomSupervisor", "TransportClosed"]

logger = logging.getLogger("band.adapters.supervisor")


class TransportClosed(BandError):
    """A room's agent process went away (or closed its output) while we needed it."""


class AgentProcess(Protocol):
    """What the supervisor needs from a room's process wrapper."""

    @property
    def alive(self) -> bool: ...

    @property
    def exit_description(self) -> str: ...

    @property
    def pid(self) -> int | None: ...

    async def close(self) -> None: ...


P = TypeVar("P", bound=AgentProcess)


class RoomSupervisor(Generic[P]):
    """The live process of each room."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._procs: dict[str, P] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def current(self, room_id: str) -> P | None:
        return self._procs.get(room_id)

    def running(self, room_id: str) -> str:
        """How the room's process stands, as ``/status`` says it."""
        proc = self._procs.get(room_id)
        if proc is None or not proc.alive:
            return "not running (it starts with the next message)"
        return f"running (pid {proc.pid})"

    async def get(
        self,
        room_id: str,
        start: Callable[[], Awaitable[P]],
        announce_crash: Callable[[str], Awaitable[None]],
    ) -> P:
        """The room's live process, starting one (after announcing a dead one) if needed."""
        async with self._locks.setdefault(room_id, asyncio.Lock()):
            proc = self._procs.get(room_id)
            if proc is not None and proc.alive:
                return proc
            if proc is not None:
                self._procs.pop(room_id, None)
                logger.warning(
                    "Room %s: %s had exited (%s)", room_id, self.label, proc.exit_description
                )
                await announce_crash(
                    f"The {self.label} process of this room had exited "
                    f"({proc.exit_description}); starting a new one."
                )
                await proc.close()
            proc = await start()
            self._procs[room_id] = proc
            return proc

    async def discard(self, room_id: str) -> None:
        """Forget (and close) the room's process; its failure was already reported."""
        proc = self._procs.pop(room_id, None)
        if proc is not None:
            await proc.close()

    async def close(self, room_id: str) -> None:
        await self.discard(room_id)
        self._locks.pop(room_id, None)

    async def close_all(self) -> None:
        rooms = list(self._procs)
        await asyncio.gather(*(self.close(r) for r in rooms), return_exceptions=True)
