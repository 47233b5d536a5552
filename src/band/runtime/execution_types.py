"""A room execution's vocabulary: its states, its resync outcomes, the ``Execution`` protocol.

``room_execution.ExecutionContext`` is the implementation; ``AgentRuntime`` drives any object
that has this shape (``execution_factory``).
"""

from __future__ import annotations

from enum import Enum, StrEnum
from typing import Protocol, runtime_checkable

from band.platform.event import PlatformEvent

from .control import ControlMode

__all__ = ["Execution", "ExecutionState", "ResyncOutcome", "ResyncRequest"]


class ResyncRequest:
    """A queue marker: reconcile with ``/next`` at the next turn boundary."""

    type: str = "_resync"


class ResyncOutcome(Enum):
    """What one reconciliation with ``/next`` found."""

    EMPTY = "empty"  # nothing to do
    WORK = "work"  # it ran messages
    BLOCKED = "blocked"  # a message the adapter did not accept holds the head
    RETRY = "retry"  # /next failed; the next resync tries again
    STOPPED = "stopped"  # the platform stopped the room


class ExecutionState(StrEnum):
    """Where a room's execution is in its life."""

    STARTING = "starting"
    IDLE = "idle"
    PROCESSING = "processing"


@runtime_checkable
class Execution(Protocol):
    """A room's execution as ``AgentRuntime`` drives it (``execution_factory`` builds one).

    ``interrupt``, ``stop_room``, ``resume_room`` and ``request_resync`` are looked up before
    use, so a custom execution without them degrades to a no-op for that signal.
    """

    room_id: str

    async def start(self) -> None: ...

    async def stop(self, timeout: float | None = None) -> bool: ...  # noqa: ASYNC109

    async def on_event(self, event: PlatformEvent) -> None: ...

    async def request_resync(self) -> None: ...

    def inject_system_message(self, message: str) -> None: ...

    def interrupt(self, *, kind: str = ControlMode.INTERRUPT) -> bool: ...

    def stop_room(self) -> None: ...

    async def resume_room(self) -> None: ...
