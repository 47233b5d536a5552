"""``Forwarder``: envelopes to a runtime over HTTP, in order per room, retried with backoff.

One queue and one worker per room: a room's envelopes are delivered one at a time in
arrival order; rooms proceed concurrently. A runtime that is down, slow or answers 5xx is
retried with capped exponential backoff until it answers; a 4xx answer (a bad envelope) is
logged and dropped. The bridge never claims a message, so while the runtime is away the
message stays open on the platform and nothing is lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

__all__ = ["Forwarder", "Target"]

log = logging.getLogger("band.bridge.forwarder")

# Where a room's envelopes go: a URL, resolved per envelope (daemon mode starts the target).
Target = Callable[[str, str], Awaitable[str]]
_STOP = object()


class Forwarder:
    """Delivers envelopes for one agent (see the module docstring)."""

    def __init__(
        self,
        target: Target,
        *,
        timeout: float = 300.0,
        backoff_base: float = 0.5,
        backoff_cap: float = 30.0,
        max_rejections: int = 3,
        on_delivered: Callable[[str, str, dict[str, Any]], None] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.target = target
        self.backoff_base = backoff_base
        self.backoff_cap = backoff_cap
        self.max_rejections = max_rejections
        self.on_delivered = on_delivered
        self._client = httpx.AsyncClient(timeout=timeout, transport=transport)
        self._queues: dict[str, asyncio.Queue[Any]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._queued: dict[str, set[str]] = {}

    def submit(self, agent_id: str, room_id: str, envelope: dict[str, Any]) -> None:
        """Queue an envelope for its room; a message already queued is not queued twice."""
        message_id = str((envelope.get("payload") or {}).get("id") or "")
        queued = self._queued.setdefault(room_id, set())
        if envelope["event_type"] == "message_created" and message_id:
            if message_id in queued:
                return
            queued.add(message_id)
        queue = self._queues.get(room_id)
        if queue is None:
            queue = self._queues[room_id] = asyncio.Queue()
            self._workers[room_id] = asyncio.create_task(
                self._work(agent_id, room_id, queue), name=f"band-bridge-{room_id}"
            )
        queue.put_nowait(envelope)

    async def aclose(self) -> None:
        for task in self._workers.values():
            task.cancel()
        for task in self._workers.values():
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self._client.aclose()

    async def _work(self, agent_id: str, room_id: str, queue: asyncio.Queue[Any]) -> None:
        while True:
            envelope = await queue.get()
            try:
                await self._deliver(agent_id, room_id, envelope)
            finally:
                message_id = str((envelope.get("payload") or {}).get("id") or "")
                self._queued.get(room_id, set()).discard(message_id)

    async def _deliver(self, agent_id: str, room_id: str, envelope: dict[str, Any]) -> None:
        attempt = 0
        rejections = 0
        kind = envelope["event_type"]
        while True:
            url = await self.target(agent_id, room_id)
            try:
                response = await self._client.post(url, json=envelope)
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
            else:
                if response.is_success:
                    result = _json(response)
                    log.info(
                        "Room %s: %s forwarded -> %s", room_id, kind, result.get("status", "ok")
                    )
                    if self.on_delivered is not None:
                        self.on_delivered(agent_id, room_id, result)
                    return
                if response.status_code < 500:
                    log.error("Room %s: runtime refused %s: %s", room_id, kind, response.text[:200])
                    return
                rejections += 1
                problem = f"HTTP {response.status_code}"
                if rejections >= self.max_rejections:
                    # The runtime ran the turn and it failed (marked failed on the platform).
                    log.error(
                        "Room %s: runtime failed %s %d times; giving up", room_id, kind, rejections
                    )
                    return
            delay = min(self.backoff_cap, self.backoff_base * 2**attempt) * random.uniform(0.5, 1)  # nosec B311 # backoff jitter, not a secret
            attempt += 1
            log.warning(
                "Room %s: runtime unavailable (%s); retry in %.1fs", room_id, problem, delay
            )
            await asyncio.sleep(delay)


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
