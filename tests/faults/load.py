"""The burst: people post mentions over REST to different nodes and keep what was answered 2xx.

One lane per room posts that room's mentions one after the other (each waits for its answer),
so the order a lane was acknowledged in is the order the room must keep. Lanes run at once and
are paced to a total rate, so a fault injected a few seconds in lands in the middle of the
burst. Post k of a room mentions agent (k + room) mod (agents) and goes to node
(k div agents + room) mod (live nodes): every person reaches every node, and every agent hears
from every node. A post that fails in transport, answers 5xx, or 409 (its key still being
written) is retried on the next live node with the **same** Idempotency-Key, so a post that
committed before its answer was lost is answered once, not posted twice. Every 2xx is recorded
with its message id; a post that never got a 2xx within its deadline counts as unacknowledged.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import httpx

from compat.compat_harness import AgentCreds, Person

TOKEN_PATTERN = r"\bm\d+-\d+-[0-9a-f]{8}\b"  # what `_post` puts in a mention, and a reply echoes
POST_DEADLINE = 45.0  # seconds one post may keep retrying before it counts as unacknowledged
REQUEST_TIMEOUT = 10.0


@dataclass(frozen=True)
class Ack:
    token: str
    room_id: str
    agent_id: str
    message_id: str
    node: str
    position: int  # the post's place in its room's lane
    attempts: int
    replayed: bool = False  # the 2xx was a replay of an earlier try's answer (Idempotency-Key)


@dataclass
class BurstResult:
    acks: list[Ack] = field(default_factory=list)
    unacknowledged: list[str] = field(default_factory=list)  # tokens
    refused: list[tuple[str, int, str]] = field(default_factory=list)  # token, status, body
    retries: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, per acknowledged post
    started: float = 0.0
    ended: float = 0.0

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    def latency_ms(self) -> dict[str, float]:
        """p50 / p95 / max of the time from a post's first try to its 2xx."""
        ordered = sorted(self.latencies) or [0.0]

        def at(q: float) -> float:
            return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)

        return {"p50": at(0.5), "p95": at(0.95), "max": round(1000 * ordered[-1], 1)}


@dataclass
class Burst:
    """``per_room`` mentions in each room, ``rate`` posts/s in all, to ``node_urls()``.

    ``room_agents`` (when rooms hold different agents, as in the soak) names the agents of room
    i; by default every agent is in every room."""

    rooms: tuple[str, ...]
    poster: Callable[[int], Person]
    agents: tuple[AgentCreds, ...]
    node_urls: Callable[[], list[str]]
    per_room: int
    rate: float
    # False: every post goes to the first of ``node_urls()`` and each retry to the next one (a
    # person who knows one node and falls back to the other); True: spread as described above.
    spread: bool = True
    result: BurstResult = field(default_factory=BurstResult)
    room_agents: Callable[[int], Sequence[AgentCreds]] | None = None
    # Closed by ``hold``: every lane waits before its next post until ``release``.
    _going: asyncio.Event = field(default_factory=asyncio.Event, init=False, repr=False)
    _stopping: bool = field(default=False, init=False, repr=False)

    def __post_init__(self) -> None:
        self._going.set()

    def hold(self) -> None:
        """Posts wait (what is in flight finishes) until :meth:`release`; the lanes' schedule
        shifts by the pause."""
        self._going.clear()

    def release(self) -> None:
        self._going.set()

    def stop(self) -> None:
        """No new post (what is in flight finishes): the burst ends early (a timed soak)."""
        self._stopping = True
        self._going.set()

    @property
    def total(self) -> int:
        return self.per_room * len(self.rooms)

    @property
    def acknowledged(self) -> int:
        return len(self.result.acks)

    async def run(self) -> BurstResult:
        self.result.started = time.monotonic()
        limits = httpx.Limits(max_connections=64, max_keepalive_connections=16)
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT, limits=limits) as http:
            await asyncio.gather(*(self._lane(http, r) for r in range(len(self.rooms))))
        self.result.ended = time.monotonic()
        return self.result

    async def wait_acknowledged(self, count: int, within: float = 60) -> None:
        """Until ``count`` posts were answered 2xx (the moment a scenario injects its fault)."""
        deadline = time.monotonic() + within
        while self.acknowledged < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"only {self.acknowledged} of {count} posts answered")
            await asyncio.sleep(0.05)

    async def _lane(self, http: httpx.AsyncClient, room_index: int) -> None:
        room_id, person = self.rooms[room_index], self.poster(room_index)
        agents = self.agents if self.room_agents is None else self.room_agents(room_index)
        gap = len(self.rooms) / self.rate
        start = self.result.started + room_index * gap / len(self.rooms)
        paused = 0.0
        for k in range(self.per_room):
            delay = start + paused + k * gap - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            if not self._going.is_set():
                held = time.monotonic()
                await self._going.wait()
                paused += time.monotonic() - held
            if self._stopping:
                return
            agent = agents[(k + room_index) % len(agents)]
            await self._post(http, room_index, room_id, person, agent, k)

    def _url(self, urls: list[str], room_index: int, position: int, attempt: int) -> str:
        if not self.spread:
            return urls[attempt % len(urls)]
        # Not (position + room) like the agent's choice: each agent hears from every node.
        return urls[(position // len(self.agents) + room_index + attempt) % len(urls)]

    async def _post(
        self,
        http: httpx.AsyncClient,
        room_index: int,
        room_id: str,
        person: Person,
        agent: AgentCreds,
        position: int,
    ) -> None:
        token = f"m{room_index}-{position}-{uuid.uuid4().hex[:8]}"
        body = {"message": {"content": f"@{agent.handle} {token}", "mentions": [{"id": agent.id}]}}
        headers = {"X-API-Key": person.key, "Idempotency-Key": f"faults-{token}"}
        first = time.monotonic()
        deadline = first + POST_DEADLINE
        attempt = 0
        while time.monotonic() < deadline:
            urls = self.node_urls()
            if not urls:
                await asyncio.sleep(0.2)
                continue
            url = self._url(urls, room_index, position, attempt)
            attempt += 1
            try:
                r = await http.post(
                    f"{url}/api/v1/me/chats/{room_id}/messages", json=body, headers=headers
                )
            except httpx.TransportError:
                r = None
            if r is not None and r.status_code in (200, 201):
                data = r.json()["data"]
                replayed = r.headers.get("idempotent-replayed") == "true"
                ack = Ack(
                    token, room_id, agent.id, str(data["id"]), url, position, attempt, replayed
                )
                self.result.acks.append(ack)
                self.result.latencies.append(time.monotonic() - first)
                return
            if r is not None and r.status_code < 500 and r.status_code != 409:
                self.result.refused.append((token, r.status_code, r.text[:300]))
                return
            self.result.retries += 1
            await asyncio.sleep(min(0.1 * attempt, 1.0))
        self.result.unacknowledged.append(token)
