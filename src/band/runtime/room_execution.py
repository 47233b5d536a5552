"""``ExecutionContext``: one room's serial worker for host code that has no adapter.

Events for the room queue up and run one at a time through ``on_execute(ctx, event)``.
For a message the context first claims it (``/processing``), then calls the handler, then
acknowledges (``/processed``, or ``/failed`` with the error text when the handler raised).
At start, after ``request_resync()`` and after every message it drains ``/next``, so a
message pushed while nobody listened is still handled, once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from band.platform.event import MessageEvent, PlatformEvent, event_from_push
from band.platform.turn_keys import turn_scope

from .config import SessionConfig
from .context import ConversationContext
from .history import build_participants_message, history_before, is_self_echo, roster_entry
from .retry_tracker import MessageRetryTracker

if TYPE_CHECKING:
    from band.platform.link import BandLink

__all__ = ["Execution", "ExecutionContext", "ExecutionHandler"]

log = logging.getLogger("band.runtime.execution")

ExecutionHandler = Callable[["ExecutionContext", PlatformEvent], Awaitable[None]]
ParticipantHook = Callable[[str, dict[str, Any]], Any]
_RESYNC = object()
_STOP = object()


@runtime_checkable
class Execution(Protocol):
    """What ``AgentRuntime`` needs of a room's execution."""

    async def start(self) -> None: ...

    async def stop(self, timeout: float | None = None) -> bool: ...  # noqa: ASYNC109

    async def on_event(self, event: PlatformEvent) -> None: ...

    def request_resync(self) -> None: ...


class ExecutionContext:
    """The serial execution of one room (see the module docstring)."""

    def __init__(
        self,
        room_id: str,
        link: BandLink,
        on_execute: ExecutionHandler,
        config: SessionConfig | None = None,
        agent_id: str | None = None,
        on_participant_added: ParticipantHook | None = None,
        on_participant_removed: ParticipantHook | None = None,
    ) -> None:
        self.room_id = room_id
        self.link = link
        self.on_execute = on_execute
        self.config = config or SessionConfig()
        self._agent_id = agent_id or link.agent_id
        self.on_participant_added = on_participant_added
        self.on_participant_removed = on_participant_removed
        self.retries = MessageRetryTracker(self.config.max_message_retries, room_id)
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._roster: dict[str, dict[str, Any]] = {}
        self._context: ConversationContext | None = None
        self._done: set[str] = set()
        self._system: list[str] = []
        self._processing = False
        self._participants_sent: list[dict[str, Any]] | None = None

    # -- state -------------------------------------------------------------------------------

    @property
    def agent_id(self) -> str:
        return self._agent_id

    @property
    def participants(self) -> list[dict[str, Any]]:
        return [dict(p) for p in self._roster.values()]

    @property
    def is_processing(self) -> bool:
        return self._processing

    @property
    def is_running(self) -> bool:
        return self._task is not None and not self._task.done()

    def set_participants(self, participants: list[dict[str, Any]]) -> None:
        entries = (roster_entry(p) for p in participants)
        self._roster = {e["id"]: e for e in entries if e is not None}

    def add_participant(self, participant: dict[str, Any]) -> bool:
        entry = roster_entry(participant)
        if entry is None or self._roster.get(entry["id"]) == entry:
            return False
        self._roster[entry["id"]] = entry
        return True

    def remove_participant(self, participant_id: str) -> bool:
        return self._roster.pop(participant_id, None) is not None

    def participants_changed(self) -> bool:
        return self._participants_sent != self.participants

    def mark_participants_sent(self, snapshot: list[dict[str, Any]] | None = None) -> None:
        self._participants_sent = snapshot if snapshot is not None else self.participants

    def build_participants_message(self) -> str:
        return build_participants_message(self._roster.values(), self._agent_id)

    def inject_system_message(self, message: str) -> None:
        """Queue a ``[System]`` line for the next turn of this room."""
        self._system.append(message)

    def get_pending_system_messages(self) -> list[str]:
        pending, self._system = self._system, []
        return pending

    async def load_participants(self) -> list[dict[str, Any]]:
        """Fetch the roster from the platform (and keep it)."""
        self.set_participants(await self.link.api.get_participants(self.room_id))
        return self.participants

    async def hydrate(self) -> None:
        await self.get_context(force_refresh=True)

    async def get_context(self, force_refresh: bool = False) -> ConversationContext:
        """Participants and the agent's context in the room, fetched once (or on demand)."""
        if self._context is None or force_refresh:
            await self.load_participants()
            items, _meta = await self.link.api.get_context(self.room_id)
            keep = items[-self.config.max_context_messages :]
            self._context = ConversationContext(
                self.room_id, keep, self.participants, datetime.now(UTC)
            )
        return self._context

    async def get_history_for_llm(
        self, exclude_message_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Raw history items (role, content, sender_name, ...) before ``exclude_message_id``."""
        context = await self.get_context()
        return history_before(context.messages, exclude_message_id or "", self._roster)

    async def claim_message(self, message_id: str) -> bool:
        """Mark the message processing; False when the platform did not confirm."""
        return await self.link.mark_processing(self.room_id, message_id)

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            log.info("Starting ExecutionContext for room: %s", self.room_id)
            self._task = asyncio.create_task(self._run(), name=f"band-exec-{self.room_id}")

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        """Finish the current event (up to ``timeout``), then end; True when nothing was cut."""
        if self._task is None:
            return True
        self._queue.put_nowait(_STOP)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
            return True
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            return False

    async def on_event(self, event: PlatformEvent) -> None:
        self._queue.put_nowait(event)

    def request_resync(self) -> None:
        """Drain ``/next`` at the next opportunity (after a reconnect, for instance)."""
        self._queue.put_nowait(_RESYNC)

    # -- the loop ----------------------------------------------------------------------------

    async def _run(self) -> None:
        await self._drain()
        while True:
            item = await self._queue.get()
            if item is _STOP:
                return
            if item is _RESYNC:
                await self._drain()
            elif isinstance(item, MessageEvent):
                if await self._message(item):
                    await self._drain()
            else:
                await self._other(item)

    async def _drain(self) -> None:
        last: str | None = None
        while True:
            try:
                payload = await self.link.api.get_next(self.room_id)
            except Exception as exc:
                log.warning("Room %s: /next failed: %s", self.room_id, exc)
                return
            if payload is None or payload.get("id") == last:
                return
            last = str(payload.get("id"))
            event = event_from_push("message_created", self.room_id, payload)
            if isinstance(event, MessageEvent):
                await self._message(event)

    async def _message(self, event: MessageEvent) -> bool:
        raw = event.raw or {}
        message_id = str(raw.get("id") or "")
        if not message_id or message_id in self._done or is_self_echo(raw, self._agent_id):
            return False
        _count, exceeded = self.retries.record_attempt(message_id)
        if exceeded:
            return False
        if not await self.claim_message(message_id):
            self.retries.discard_attempt(message_id)
            return False
        self._processing = True
        try:
            with turn_scope(self._agent_id, message_id):  # a re-run posts nothing twice
                await self.on_execute(self, event)
        except Exception as exc:
            log.error("Error processing message_created", exc_info=exc)
            await self.link.mark_failed(self.room_id, message_id, str(exc) or type(exc).__name__)
        else:
            self._done.add(message_id)
            self.retries.mark_success(message_id)
            await self.link.mark_processed(self.room_id, message_id)
        finally:
            self._processing = False
        return True

    async def _other(self, event: PlatformEvent) -> None:
        raw = event.raw or {}
        if event.type == "participant_added":
            self.add_participant(raw)
            hook = self.on_participant_added
        elif event.type == "participant_removed":
            self.remove_participant(str(raw.get("id")))
            hook = self.on_participant_removed
        else:
            hook = None
        try:
            if hook is not None:
                result = hook(self.room_id, raw)
                if asyncio.iscoroutine(result):
                    await result
            await self.on_execute(self, event)
        except Exception:
            log.exception("Room %s: handler failed for %s", self.room_id, event.type)
