"""One room: its cached roster and context (``RoomState``) and its serial worker (``RoomWorker``).

Turns in a room run one at a time in arrival order; rooms run concurrently. The worker
drains ``/next`` at admission, after every ``/next``-sourced turn, on reconnect and on an
idle timer (first fire random within ``idle_resync_seconds``, then doubling while idle up to
``idle_resync_max_seconds``), so a lost push is recovered by the platform, never by luck.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from typing import Any

from .execution import Outcome, TurnRunner, TurnServices
from .history import (
    build_participants_message,
    delivery_processed,
    history_before,
    is_self_echo,
    roster_entry,
)

__all__ = ["RoomState", "RoomWorker"]

log = logging.getLogger("band.runtime.room")
history_log = logging.getLogger("band.preprocessing.default")

_DRAIN = object()


class RoomState:
    """What the agent knows about one room: roster, hydrated context, session bootstrap."""

    def __init__(self, room_id: str, services: TurnServices) -> None:
        self.room_id = room_id
        self.s = services
        self.roster: dict[str, dict[str, Any]] = {}
        self.context: list[dict[str, Any]] = []
        self.bootstrap = True
        self._hydrated_at: float | None = None
        self._roster_version = 0
        self._delivered_version = -1

    @property
    def participants(self) -> list[dict[str, Any]]:
        return [dict(p) for p in self.roster.values()]

    async def ensure_hydrated(self) -> None:
        """Fetch participants and context on first use and after the cache TTL."""
        cfg = self.s.session
        fresh = self._hydrated_at is not None and (
            cfg.enable_context_cache
            and time.monotonic() - self._hydrated_at < cfg.context_cache_ttl_seconds
        )
        if fresh:
            return
        self._hydrated_at = time.monotonic()
        try:
            self.set_roster(await self.s.rest.get_participants(self.room_id))
        except Exception as exc:
            log.warning("Room %s: could not load participants: %s", self.room_id, exc)
        if not cfg.enable_context_hydration:
            return
        history_log.info("Room %s: Loading history...", self.room_id)
        try:
            items, _meta = await self.s.rest.get_context(self.room_id)
            self.context = items[-cfg.max_context_messages :]
            history_log.info("Room %s: Got %d messages", self.room_id, len(self.context))
        except Exception as exc:
            history_log.warning("Room %s: could not load history: %s", self.room_id, exc)
            self.context = []

    def set_roster(self, participants: list[dict[str, Any]]) -> None:
        roster = {}
        for p in participants:
            entry = roster_entry(p)
            if entry is not None:
                roster[entry["id"]] = entry
        if roster != self.roster:
            self.roster = roster
            self._roster_version += 1

    def participant_added(self, payload: dict[str, Any]) -> None:
        entry = roster_entry(payload)
        if entry is not None and self.roster.get(entry["id"]) != entry:
            self.roster[entry["id"]] = entry
            self._roster_version += 1

    def participant_removed(self, payload: dict[str, Any]) -> None:
        if self.roster.pop(str(payload.get("id")), None) is not None:
            self._roster_version += 1

    def take_participants_message(self) -> str | None:
        """The roster text when it changed since last delivered (always on the first turn)."""
        if self._delivered_version == self._roster_version:
            return None
        self._delivered_version = self._roster_version
        return build_participants_message(self.roster.values(), self.s.agent_id)

    def history_for(self, message_id: str) -> list[dict[str, Any]]:
        return history_before(self.context, message_id, self.roster)

    def context_says_processed(self, message_id: str) -> bool:
        for item in self.context:
            if item.get("id") == message_id:
                return delivery_processed(item, self.s.agent_id)
        return False

    def bootstrap_done(self) -> None:
        self.bootstrap = False

    def reset_session(self) -> None:
        """Forget the cached context so the next turn bootstraps again."""
        self._hydrated_at = None
        self.bootstrap = True


class RoomWorker:
    """The serial queue of one room and the task that works through it."""

    def __init__(self, room_id: str, services: TurnServices) -> None:
        self.room_id = room_id
        self.s = services
        self.state = RoomState(room_id, services)
        self.stopped = False
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._runner: TurnRunner | None = None
        self._closing = False
        self._idle = services.session.idle_resync_seconds

    # -- public ------------------------------------------------------------------------------

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"band-room-{self.room_id}")
            log.info("Starting ExecutionContext for room: %s", self.room_id)

    def push(self, payload: dict[str, Any]) -> None:
        """A ``message_created`` from the socket."""
        if not self._closing:
            self._queue.put_nowait(payload)

    def request_drain(self) -> None:
        """Poll ``/next`` until it is empty (after a reconnect or a PLAY)."""
        if not self._closing:
            self._queue.put_nowait(_DRAIN)

    @property
    def busy(self) -> bool:
        return self._runner is not None

    def control(self, mode: str) -> None:
        """Apply an ``agent.control`` mode to this room."""
        if mode == "play":
            if self.stopped:
                log.info("Room %s: resumed", self.room_id)
            self.stopped = False
            self.request_drain()
            return
        if mode == "stop":
            self.stopped = True
        if self._runner is not None:
            self._runner.interrupt(mode)
            hook = getattr(self.s.adapter, "on_interrupt", None)
            if callable(hook):
                task = asyncio.ensure_future(hook(self.room_id, mode))
                task.add_done_callback(lambda t: t.cancelled() or t.exception())

    async def stop(self, timeout: float | None) -> bool:  # noqa: ASYNC109
        """Stop taking work; wait for the current turn up to ``timeout``, else cancel it."""
        self._closing = True
        if self._task is None:
            return True
        graceful = True
        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except TimeoutError:
            graceful = False
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        return graceful

    # -- the loop ----------------------------------------------------------------------------

    async def _run(self) -> None:
        # The room's topics are joined before this first drain, so anything posted later
        # arrives as a push: one drain at admission is enough (no second poll per room).
        await self._drain()
        first = True
        while not self._closing:
            delay = self._next_idle_delay(first)
            first = False
            try:
                item = await asyncio.wait_for(self._queue.get(), delay)
            except TimeoutError:
                if await self._drain():
                    self._idle = self.s.session.idle_resync_seconds
                else:
                    cap = self.s.session.idle_resync_max_seconds
                    self._idle = min(cap, self._idle * 2)
                continue
            if item is None:
                return
            if item is _DRAIN:
                await self._drain()
                continue
            await self._handle(item, source="ws")
            self._idle = self.s.session.idle_resync_seconds

    def _next_idle_delay(self, first: bool) -> float:
        cfg = self.s.session
        if self.stopped:
            return cfg.stopped_resync_seconds or cfg.idle_resync_seconds
        return random.uniform(0, cfg.idle_resync_seconds) if first else self._idle

    async def _drain(self) -> bool:
        """Handle ``/next`` until 204 or a repeated head; True when it found work."""
        found = False
        last: str | None = None
        while not self._closing:
            try:
                async with self.s.next_gate:
                    payload = await self.s.rest.get_next(self.room_id)
            except Exception as exc:
                log.warning("Room %s: /next failed: %s", self.room_id, exc)
                break
            if payload is None or str(payload.get("id")) == last:
                break
            last = str(payload.get("id"))
            if self.stopped:
                log.info("Room %s: runnable work found while stopped; resuming", self.room_id)
                self.stopped = False
            found = True
            outcome = await self._handle(payload, source="next")
            if outcome is Outcome.STOPPED:
                break
        return found

    async def _handle(self, payload: dict[str, Any], *, source: str) -> Outcome:
        s = self.s
        message_id = str(payload.get("id"))
        if is_self_echo(payload, s.agent_id):
            return Outcome.SKIPPED
        if message_id in s.retries.done and message_id not in s.retries.pending_acks:
            return Outcome.SKIPPED
        if delivery_processed(payload, s.agent_id):
            s.retries.done.add(message_id)
            return Outcome.SKIPPED
        if self.stopped and source == "ws":
            return Outcome.STOPPED  # left for /next after PLAY
        if source == "ws":
            await self.state.ensure_hydrated()
        self._runner = TurnRunner(s, self.state)
        try:
            outcome = await self._runner.run(payload)
        finally:
            self._runner = None
        if outcome is Outcome.STOPPED:
            self.stopped = True
        return outcome
