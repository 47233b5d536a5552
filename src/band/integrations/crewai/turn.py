"""One CrewAI turn's work kept together: CrewAI's own execution and the tool calls its
worker threads hand back to the agent's loop.

A turn (:func:`tool_turn`) refuses new tool calls once it ended, and on the way out waits
for what it started; a failing or cancelled turn cancels its tool calls (each within the
cleanup grace of :mod:`band.core.turn_lifecycle`) but lets CrewAI's worker thread finish,
since a thread cannot be cancelled. :func:`settle_tool_turns` does the same from cleanup.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from band.core.exceptions import CleanupIncompleteError, InputNotAccepted
from band.core.protocols import AgentToolsProtocol
from band.core.turn_lifecycle import TurnTask, bind_turn_task, terminal_deadline

__all__ = ["ToolTurn", "settle_tool_turns", "tool_turn"]

logger = logging.getLogger(__name__)
R = TypeVar("R")


def _log_failure(task: asyncio.Task[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        logger.debug("CrewAI execution failed", exc_info=task.exception())


class ToolTurn:
    """CrewAI's execution of one turn (``execute``) and its tool calls (``run_tool``)."""

    def __init__(self, tools: AgentToolsProtocol) -> None:
        self._tools = tools
        self._closed = False
        self._native: asyncio.Task[Any] | None = None
        self._owners: set[TurnTask] = set()

    @property
    def settled(self) -> bool:
        """Ended, and nothing it started is still running."""
        native_done = self._native is None or self._native.done()
        return self._closed and native_done and all(o.task.done() for o in self._owners)

    def check_active(self) -> None:
        if self._closed:
            raise InputNotAccepted("this CrewAI turn has ended; it takes no new work")

    async def execute(self, operation: Callable[[], Coroutine[Any, Any, R]]) -> R:
        """Run CrewAI's execution (once per turn); cancelling the caller does not abandon it."""
        self.check_active()
        if self._native is not None:
            raise RuntimeError("this CrewAI turn already started its execution")
        self._native = asyncio.create_task(operation())
        self._native.add_done_callback(_log_failure)
        return await asyncio.shield(self._native)

    async def run_tool(self, operation: Callable[[], Coroutine[Any, Any, R]]) -> R:
        """Run one tool call as work of this turn (cancelled with it)."""
        self.check_active()
        task = asyncio.create_task(operation())
        owner = bind_turn_task(self._tools, task)
        self._owners.add(owner)
        try:
            return await asyncio.shield(task)
        finally:
            if task.done():
                self._owners.discard(owner)

    async def abort(self) -> None:
        """Take no new work and cancel the running tool calls within the cleanup grace."""
        self._closed = True
        owners = list(self._owners)
        deadline = terminal_deadline()
        for owner in owners:
            owner.retry(deadline=deadline)
        try:
            drained = await asyncio.gather(*(owner.drain() for owner in owners))
        finally:
            self._owners = {o for o in self._owners if not o.task.done()}
        if not all(drained):
            raise CleanupIncompleteError("CrewAI tool calls are still running; retry cleanup")

    async def close(self, *, cancel: bool) -> None:
        """End the turn (cancelling its tool calls when ``cancel``) and wait for its work."""
        self._closed = True
        if cancel:
            await self.abort()
        running = {o.task for o in self._owners if not o.task.done()}
        if self._native is not None and not self._native.done():
            running.add(self._native)
        if running:
            await asyncio.wait(running)


def _drop_settled(turns: dict[str, set[ToolTurn]], room_id: str) -> None:
    room = turns.get(room_id)
    if room is None:
        return
    room -= {turn for turn in room if turn.settled}
    if not room:
        del turns[room_id]


@asynccontextmanager
async def tool_turn(
    turns: dict[str, set[ToolTurn]], room_id: str, tools: AgentToolsProtocol
) -> AsyncIterator[ToolTurn]:
    """A :class:`ToolTurn` for one message of ``room_id``, kept in ``turns`` while it runs."""
    turn = ToolTurn(tools)
    turns.setdefault(room_id, set()).add(turn)
    try:
        try:
            yield turn
        except BaseException as error:
            try:
                await turn.abort()
            except (asyncio.CancelledError, CleanupIncompleteError):
                error.add_note("CrewAI work is still running; retry the adapter's cleanup")
            raise
        await turn.close(cancel=False)
    finally:
        _drop_settled(turns, room_id)


async def settle_tool_turns(turns: dict[str, set[ToolTurn]], *, room_id: str | None = None) -> None:
    """Cancel and wait for the turns of ``room_id`` (every room when None)."""
    rooms = list(turns) if room_id is None else [room_id]
    pending = [turn for room in rooms for turn in turns.get(room, ())]
    try:
        results = await asyncio.gather(
            *(turn.close(cancel=True) for turn in pending), return_exceptions=True
        )
    finally:
        for room in rooms:
            _drop_settled(turns, room)
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        raise BaseExceptionGroup("CrewAI work did not settle", failures)
