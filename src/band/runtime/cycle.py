"""``TurnScope``: who owns the asynchronous work one turn started, and ending it all at once.

The handler's task and any detached workers bound to the scope share one cleanup deadline:
``terminate`` starts it once and hands it to every owner (and to workers bound later).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from band.client.streaming.client import ControlMode
from band.core.turn_lifecycle import TurnTask, terminal_deadline

__all__ = ["TurnScope"]


@dataclass(eq=False)
class TurnScope:
    """One turn's owners, what ended it (``kind``), and its single cleanup deadline."""

    control_revision: int
    stop_revision: int | None = None  # when a platform stop was seen during this turn
    observer_task: asyncio.Task[None] | None = None
    handler: TurnTask | None = None
    admitted: bool = False
    settled: bool = False
    kind: ControlMode | None = None
    deadline: float | None = None
    cooperative: bool = False
    shutdown: bool = False
    terminated: asyncio.Event = field(default_factory=asyncio.Event)
    workers: set[TurnTask] = field(default_factory=set)

    @property
    def stop_observed(self) -> bool:
        return self.stop_revision is not None

    @property
    def terminating(self) -> bool:
        return self.deadline is not None

    @property
    def aborted(self) -> bool:
        """Ending, or one of its workers is (a detached worker may be stopped later)."""
        return self.terminating or any(w.deadline is not None for w in self.workers)

    def bind(self, owner: TurnTask) -> None:
        """Own ``owner`` too; a scope already ending ends it at once."""
        self.workers.add(owner)
        if self.deadline is not None:
            owner.terminate(deadline=self.deadline, cooperative=self.cooperative)

    def terminate(
        self,
        kind: ControlMode | None = None,
        *,
        cooperative: bool = False,
        observed: bool = False,
        shutdown: bool = False,
    ) -> None:
        """End every owner under one deadline (the first call sets it; later ones keep it).

        ``kind`` records why (a control), unless the turn already settled, or an observed
        kind would overwrite one already set.
        """
        if kind is not None and not self.settled and (not observed or self.kind is None):
            self.kind = kind
        self.shutdown |= shutdown
        if self.deadline is None:
            self.deadline = terminal_deadline()
            self.cooperative = cooperative
        owners = [*self.workers, *([self.handler] if self.handler is not None else [])]
        for owner in owners:
            owner.terminate(deadline=self.deadline, cooperative=self.cooperative)
        self.terminated.set()
