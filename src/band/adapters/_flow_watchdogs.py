"""Peers that never answer a CrewAI Flow run: one watchdog task per run with pending delegations.

At each pending delegation's deadline the watchdog marks it failed (``reply_timeout``); once
the run's round is joined, it runs the flow again so it can answer with what it has. It takes
the room's lock for that, so a room's turns and its watchdogs take turns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from band.converters import crewai_flow as flow
from band.core.protocols import AgentToolsProtocol

__all__ = ["FlowWatchdogs"]

logger = logging.getLogger("band.adapters.crewai_flow")

Participants = list[flow.CrewAIFlowParticipantSnapshot]
# Runs the flow again for a run whose round a timeout joined (no message, no updates).
Advance = Callable[
    [AgentToolsProtocol, flow.CrewAIFlowSessionState, flow.CrewAIFlowMetadata, Participants],
    Awaitable[None],
]


def _deadline(delegation: flow.CrewAIFlowDelegationState, limit: float) -> float:
    """Seconds until the delegation's reply is overdue (negative: overdue)."""
    started = datetime.fromisoformat(delegation.delegated_at or datetime.now(UTC).isoformat())
    return limit - (datetime.now(UTC) - started).total_seconds()


@dataclass
class FlowWatchdogs:
    """The watchdog tasks of every room's runs (keyed ``<room>/<run>``).

    ``rooms`` is the runs' live state, ``lock(room)`` the room's lock, ``limit`` the reply
    timeout in seconds.
    """

    rooms: dict[str, flow.CrewAIFlowSessionState]
    lock: Callable[[str], asyncio.Lock]
    advance: Advance
    limit: float
    tasks: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    def resume(self, room: str, tools: AgentToolsProtocol, participants: Participants) -> None:
        """Watch every run of ``room`` that waits on delegations (after a restore)."""
        for run in self.rooms[room].runs.values():
            if run.status == flow.CrewAIFlowRunStatus.DELEGATED_PENDING and run.pending:
                self.watch(room, run.run_id, tools, participants)

    def watch(
        self, room: str, run_id: str, tools: AgentToolsProtocol, participants: Participants
    ) -> None:
        key = f"{room}/{run_id}"
        if key not in self.tasks or self.tasks[key].done():
            task = asyncio.create_task(
                self._watchdog(room, run_id, tools, participants), name=f"crewai-flow-{key}"
            )
            self.tasks[key] = task

    async def _watchdog(
        self, room: str, run_id: str, tools: AgentToolsProtocol, participants: Participants
    ) -> None:
        limit = self.limit
        while True:
            state = self.rooms.get(room)
            run = None if state is None else state.runs.get(run_id)
            if run is None or not run.pending:
                return
            await asyncio.sleep(max(0.0, min(_deadline(d, limit) for d in run.pending)))
            async with self.lock(room):
                state = self.rooms.get(room)
                run = None if state is None else state.runs.get(run_id)
                if state is None or run is None or state.is_terminal(run_id):
                    return
                overdue = [d for d in run.pending if _deadline(d, limit) <= 0]
                for delegation in overdue:
                    delegation.status = flow.CrewAIFlowDelegationStatus.FAILED
                    delegation.error = flow.CrewAIFlowError(
                        code="reply_timeout", message=f"no reply within {limit:g}s"
                    )
                if not overdue or not run.joined:
                    continue
                try:
                    await self.advance(tools, state, run, participants)
                except Exception:
                    logger.exception("CrewAI Flow run %s failed after a reply timeout", run_id)
                return

    async def forget(self, room: str) -> None:
        """Cancel (and wait for) the watchdogs of ``room``."""
        for key in [k for k in self.tasks if k.startswith(f"{room}/")]:
            task = self.tasks.pop(key)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
