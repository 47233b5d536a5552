"""The gateway's state: A2A contexts mapped to Band rooms, and the A2A requests in flight."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from band._extras import needs_extra

with needs_extra("the A2A gateway needs a2a-sdk", "a2a_gateway"):
    from a2a.helpers import new_text_message
    from a2a.server.events import EventQueue
    from a2a.server.tasks import TaskUpdater
    from a2a.types import Message, Task, TaskState

__all__ = ["GatewaySessionState", "PendingA2ATask"]


@dataclass
class GatewaySessionState:
    """What the gateway's ``task`` events say: A2A context -> room, and who is in each room."""

    context_to_room: dict[str, str] = field(default_factory=dict)
    room_participants: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class PendingA2ATask:
    """One A2A request waiting for a Band peer's reply in its room.

    Its task moves through ``working`` (progress), then ends once: ``completed`` with the
    reply, ``failed``, or ``canceled``; ``done`` is set then.
    """

    task: Task
    event_queue: EventQueue
    done: asyncio.Event = field(default_factory=asyncio.Event)
    _updater: TaskUpdater = field(init=False, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._updater = TaskUpdater(self.event_queue, self.task.id, self.task.context_id)

    async def report_progress(self, content: str) -> None:
        """A ``working`` status carrying ``content`` (ignored once the task ended)."""
        async with self._lock:
            if not self.done.is_set():
                await self._updater.start_work(self._message(content))

    async def complete_with_message(self, content: str) -> None:
        """End the task ``completed`` with the peer's reply."""
        async with self._lock:
            if not self.done.is_set():
                await self._updater.complete(self._message(content))
                self.done.set()

    async def fail(self, reason: str, *, failure: dict[str, Any] | None = None) -> None:
        """End the task ``failed``; ``failure`` (an AgentFailure dict) goes in its metadata."""
        async with self._lock:
            if not self.done.is_set():
                await self._updater.update_status(
                    TaskState.TASK_STATE_FAILED,
                    message=self._message(reason),
                    metadata={"failure": failure} if failure else None,
                )
                self.done.set()

    async def cancel(self) -> None:
        """End the task ``canceled``."""
        async with self._lock:
            if not self.done.is_set():
                await self._updater.cancel()
                self.done.set()

    def _message(self, content: str) -> Message:
        return new_text_message(content, context_id=self.task.context_id, task_id=self.task.id)
