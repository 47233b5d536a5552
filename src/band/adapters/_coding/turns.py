"""Turns that can outlive ``on_message``: released while an approval waits for the room.

Band hands a room one message at a time, so ``/approve`` can only arrive once
``on_message`` has returned. A turn therefore runs as a task: ``on_message`` waits for it,
unless the turn calls :meth:`DetachableTurn.release` (an approval notice went out). Then
the runtime's turn is detached, and the task is judged when it really ends: an error or a
turn that never replied is reported to the room once. A message arriving meanwhile becomes
a detached turn queued behind it, so it is answered in order rather than lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine
from typing import Any

from band.core.exceptions import RoomExecutionStoppedError, TurnResultAlreadyReported
from band.core.protocols import TURN_FAILURE_PROVIDER, AgentToolsProtocol
from band_protocol import AgentFailure, missing_reply_message

__all__ = ["DetachableTurn", "TurnTasks"]

logger = logging.getLogger("band.adapters.coding.turns")


class DetachableTurn:
    """One turn's work; ``release()`` lets ``on_message`` return while it goes on."""

    def __init__(self, tools: AgentToolsProtocol, provider: str) -> None:
        self.tools = tools
        self.provider = provider
        self._released = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def release(self) -> None:
        self._released.set()

    async def finished(self) -> None:
        """Wait until this turn's work has ended, however it ended."""
        if self.task is not None:
            await asyncio.wait({self.task})

    @property
    def detached(self) -> bool:
        return self.tools.turn.detached

    async def run(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work``; return when it ends (raising its error) or once it is released."""
        self.task = task = asyncio.create_task(work)
        released = asyncio.create_task(self._released.wait())
        try:
            await asyncio.wait({task, released}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            released.cancel()
        if task.done():
            task.result()
            return
        self.tools.turn.detach()
        task.add_done_callback(self._judge_later)

    def _judge_later(self, task: asyncio.Task[None]) -> None:
        if task.cancelled():
            return
        asyncio.get_running_loop().create_task(self._judge(task.exception()))

    async def _judge(self, error: BaseException | None) -> None:
        turn = self.tools.turn
        try:
            if isinstance(error, TurnResultAlreadyReported | RoomExecutionStoppedError):
                return
            if error is not None:
                logger.error("Detached %s turn failed: %s", self.provider, error)
                if not turn.failure_reported:
                    message = f"I couldn't complete this request: {error}"
                    await self.tools.send_failure(AgentFailure(self.provider, message))
                return
            if not turn.complete and turn.posts_missing_reply:
                await self.tools.send_failure(
                    AgentFailure(TURN_FAILURE_PROVIDER, missing_reply_message())
                )
        except Exception as exc:  # the room may be gone by now
            logger.warning("Could not report the end of a detached turn: %s", exc)


class TurnTasks:
    """The detached turns still running, per room, oldest first."""

    def __init__(self) -> None:
        self._turns: dict[str, list[DetachableTurn]] = {}

    def running(self, room_id: str) -> DetachableTurn | None:
        """The room's latest turn still running (a new message queues behind it)."""
        live = [t for t in self._turns.get(room_id, []) if t.task is not None and not t.task.done()]
        if live:
            self._turns[room_id] = live
        else:
            self._turns.pop(room_id, None)
        return live[-1] if live else None

    def keep(self, room_id: str, turn: DetachableTurn) -> None:
        if turn.detached:
            self.running(room_id)
            self._turns.setdefault(room_id, []).append(turn)

    async def cancel(self, room_id: str, *, grace_s: float = 0.0) -> None:
        """Cancel the room's running turns, after letting them end within ``grace_s``."""
        turns = self._turns.pop(room_id, [])
        live = [t.task for t in turns if t.task is not None and not t.task.done()]
        if live and grace_s > 0:
            await asyncio.wait(live, timeout=grace_s)
        for task in reversed(live):
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    async def cancel_all(self, *, grace_s: float = 0.0) -> None:
        rooms = list(self._turns)
        await asyncio.gather(*(self.cancel(r, grace_s=grace_s) for r in rooms))
