"""The soak's agents: `python -m bench._soak_agents SPEC_FILE` (bench-only, one process).

SPEC: {"host", "port", "agents": [[agent_id, key, room_id], ...], "connections", "cut_every",
       "in_flight"}.

Each agent holds a socket as an SDK does (``agent_control``, ``agent_rooms`` and its room's
``chat_room`` joined, a Phoenix heartbeat every 30 s) and answers every mention as a turn does:
``/processing``, a ``tool_call`` event, a reply that mentions the sender and echoes the
mention's token (with an ``Idempotency-Key`` of the mention's id, as the SDK's turn keys: a turn
run again replays its reply instead of posting it twice), ``/processed``. After its socket
drops it reconnects, joins again and drains ``/next``, as the SDK does. Every ``cut_every``
seconds one agent's connection is aborted (no close frame), until told to stop cutting. Its REST
calls share a pool of keep-alive connections (``bench._loadgen.Conn``, the lean HTTP/1.1 client).

Lines on stdin drive it: ``stop`` (no more cuts; the agents keep answering), ``exit`` (close
everything, print the results as one JSON line). It prints ``{"phase": "connected"}`` once
every agent joined and drained.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
import time
from collections import Counter
from typing import Any

import uvloop
import websockets
from websockets.asyncio.client import ClientConnection

from bench._loadgen import Conn, percentile
from bench._socket_swarm import raise_file_limit

TOKEN = re.compile(r"\bm\d+-\d+-[0-9a-f]{8}\b")  # tests/faults/load.py's TOKEN_PATTERN
HEARTBEAT_EVERY = 30.0
IDLE_REUSE = 3.0  # seconds a pooled connection may idle (uvicorn closes one idle for 5 s)


class Rest:
    """A pool of keep-alive HTTP/1.1 connections shared by the agents; every call timed."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.host, self.port = spec["host"], int(spec["port"])
        self.size = int(spec["connections"])
        self.pool: asyncio.Queue[tuple[Conn | None, float]] = asyncio.Queue()
        self.statuses: Counter[str] = Counter()
        self.latency: list[float] = []

    def open(self) -> None:
        for _ in range(self.size):
            self.pool.put_nowait((None, 0.0))  # connected on first use

    async def call(
        self, method: str, path: str, key: str, body: Any = None, idem: str | None = None
    ) -> tuple[int, Any]:
        """The call, tried again (up to 5 times) when the connection fails or the answer is
        5xx, as the SDK retries: marks are idempotent and posts carry an Idempotency-Key."""
        for attempt in range(5):
            status, answer = await self._once(method, path, key, body, idem)
            if status < 500:
                break
            self.statuses[f"retried after {status}"] += 1
            await asyncio.sleep(0.2 * 2**attempt)
        self.statuses[f"{status // 100}xx"] += 1
        return status, answer

    async def _once(
        self, method: str, path: str, key: str, body: Any, idem: str | None
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nx-api-key: {key}\r\n"
        if idem:
            head += f"idempotency-key: {idem}\r\n"
        if body is not None:
            head += "content-type: application/json\r\n"
        request = (head + f"content-length: {len(payload)}\r\n\r\n").encode() + payload
        conn, used = await self.pool.get()
        started = time.perf_counter()
        if conn is not None and started - used > IDLE_REUSE:
            conn.writer.close()
            conn = None
        try:
            if conn is None:
                reader, writer = await asyncio.open_connection(self.host, self.port, limit=1 << 22)
                conn = Conn(reader, writer)
            status, raw = await conn.request(request)
        except (OSError, asyncio.IncompleteReadError, ValueError):
            if conn is not None:
                conn.writer.close()
            conn, status, raw = None, 599, b""
        finally:
            self.pool.put_nowait((conn, time.perf_counter()))
        self.latency.append((time.perf_counter() - started) * 1000)
        return status, json.loads(raw) if raw else None


class SoakAgent:
    __slots__ = ("id", "joined", "key", "ref", "rest", "room", "stats", "turns", "working", "ws")

    def __init__(self, agent_id: str, key: str, room: str, rest: Rest, stats: Counter[str]):
        self.id, self.key, self.room, self.rest, self.stats = agent_id, key, room, rest, stats
        self.ws: ClientConnection | None = None
        self.ref = 0
        self.working: dict[str, asyncio.Event] = {}  # message id -> set when its turn ends
        self.turns: set[asyncio.Task[None]] = set()
        self.joined = asyncio.Event()

    def _frame(self, topic: str, event: str, join: bool = False) -> str:
        self.ref += 1
        ref = str(self.ref)
        return json.dumps([ref if join else None, ref, topic, event, {}])

    async def run(self, url: str) -> None:
        """Connected, joined and drained; again after every drop, for as long as it runs."""
        first = True
        while True:
            try:
                self.ws = await websockets.connect(
                    f"{url}?vsn=2.0.0&agent_id={self.id}",
                    additional_headers={"x-api-key": self.key},
                    compression=None,
                    ping_interval=None,
                    open_timeout=60,
                    max_queue=None,
                )
            except (OSError, websockets.WebSocketException, TimeoutError):
                self.stats["connect_failures"] += 1
                await asyncio.sleep(random.uniform(0.5, 2.0))
                continue
            if not first:
                self.stats["reconnects"] += 1
            first = False
            beat = asyncio.create_task(self._heartbeats(self.ws))
            try:
                early = await self._join(self.ws)
                await self._drain()  # after the room's join: no mention falls between the two
                self.joined.set()
                for frame in early:
                    self._pushed(frame)
                async for raw in self.ws:
                    self._pushed(json.loads(raw))
            except (websockets.ConnectionClosed, TimeoutError):  # cut, or a join unanswered
                await self.ws.close()
            finally:
                beat.cancel()
            self.stats["drops"] += 1
            await asyncio.sleep(random.uniform(0.1, 1.0))

    async def _join(self, ws: ClientConnection) -> list[Any]:
        """Join the agent's topics and its room's; the frames pushed before the room's reply."""
        for topic in (f"agent_control:{self.id}", f"agent_rooms:{self.id}"):
            await ws.send(self._frame(topic, "phx_join", join=True))
        joining = self._frame(f"chat_room:{self.room}", "phx_join", join=True)
        room_ref, early = json.loads(joining)[1], []
        await ws.send(joining)
        while True:
            frame = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if frame[3] == "phx_reply" and frame[1] == room_ref:
                if frame[4].get("status") != "ok":
                    self.stats["join_refused"] += 1
                return early
            early.append(frame)

    def _pushed(self, frame: list[Any]) -> None:
        if frame[3] == "message_created":
            self.stats["pushes"] += 1
            task = asyncio.create_task(self.turn(frame[4]))
            self.turns.add(task)
            task.add_done_callback(self.turns.discard)

    async def _heartbeats(self, ws: ClientConnection) -> None:
        await asyncio.sleep(random.uniform(0, HEARTBEAT_EVERY))
        try:
            while True:
                await ws.send(self._frame("phoenix", "heartbeat"))
                await asyncio.sleep(HEARTBEAT_EVERY)
        except websockets.ConnectionClosed:
            return

    async def _drain(self) -> None:
        """``/next`` until 204: what was missed while the socket was away. A head whose turn
        is under way (its push came first) is waited for; a head served again after its turn
        ended (its ``/processed`` was refused) ends the drain, counted."""
        path = f"/api/v1/agent/chats/{self.room}/messages/next"
        last = None
        while True:
            status, body = await self.rest.call("GET", path, self.key)
            if status != 200 or not body:
                return
            message = body["data"]
            message_id = str(message["id"])
            running = self.working.get(message_id)
            if running is not None:
                await running.wait()
                continue
            if message_id == last:
                self.stats["served_again_after_its_turn"] += 1
                return
            last = message_id
            self.stats["from_next"] += 1
            await self.turn(message)

    async def turn(self, message: dict[str, Any]) -> None:
        message_id = str(message["id"])
        if message_id in self.working:
            self.stats["already_running"] += 1
            return
        ended = self.working[message_id] = asyncio.Event()
        base = f"/api/v1/agent/chats/{self.room}"
        try:
            await self._turn(base, message_id, message)
        except Exception:  # counted; the message stays open and /next serves it again
            self.stats["turn_errors"] += 1
        finally:
            del self.working[message_id]
            ended.set()

    async def _turn(self, base: str, message_id: str, message: dict[str, Any]) -> None:
        claimed, _ = await self.rest.call(
            "POST", f"{base}/messages/{message_id}/processing", self.key
        )
        if claimed != 200:
            self.stats[f"processing answered {claimed}"] += 1
        tokens = TOKEN.findall(str(message.get("content") or ""))
        token = tokens[-1] if tokens else message_id
        event = {"event": {"content": f"looking up {token}", "message_type": "tool_call"}}
        await self.rest.call(
            "POST", f"{base}/events", self.key, event, idem=f"soak-event-{message_id}"
        )
        reply = {
            "message": {
                "content": f"echo {token}",
                "mentions": [{"id": message["sender_id"]}],
            }
        }
        status, _ = await self.rest.call(
            "POST", f"{base}/messages", self.key, reply, idem=f"soak-reply-{message_id}"
        )
        if status in (200, 201):
            self.stats["replies"] += 1
        done, _ = await self.rest.call("POST", f"{base}/messages/{message_id}/processed", self.key)
        if done != 200:
            self.stats[f"processed answered {done}"] += 1


async def cut_sockets(agents: list[SoakAgent], every: float, stats: Counter[str]) -> None:
    """Abort one connected agent's socket (no close frame) every ``every`` seconds."""
    rng = random.Random(26)
    while True:
        await asyncio.sleep(every)
        live = [a for a in agents if a.ws is not None and a.ws.state.name == "OPEN"]
        if live:
            victim = rng.choice(live)
            assert victim.ws is not None
            victim.ws.transport.abort()
            stats["cuts"] += 1


async def main(spec: dict[str, Any]) -> None:
    rest = Rest(spec)
    rest.open()
    stats: Counter[str] = Counter()
    url = f"ws://{spec['host']}:{spec['port']}/api/v1/socket/websocket"
    agents = [SoakAgent(a, k, r, rest, stats) for a, k, r in spec["agents"]]
    gate = asyncio.Semaphore(int(spec.get("in_flight", 50)))

    async def start(agent: SoakAgent) -> asyncio.Task[None]:
        async with gate:
            task = asyncio.create_task(agent.run(url))
            await agent.joined.wait()
            return task

    started = time.perf_counter()
    runs = await asyncio.gather(*(start(a) for a in agents))
    print(json.dumps({"phase": "connected", "seconds": round(time.perf_counter() - started, 1)}))
    sys.stdout.flush()
    cutter = asyncio.create_task(cut_sockets(agents, float(spec["cut_every"]), stats))
    loop = asyncio.get_running_loop()
    while (line := (await loop.run_in_executor(None, sys.stdin.readline)).strip()) != "exit":
        if line in ("stop", ""):
            cutter.cancel()
        if line == "":
            break
    for task in runs:
        task.cancel()
    await asyncio.gather(
        *(a.ws.close() for a in agents if a.ws is not None), return_exceptions=True
    )
    result = {
        "agents": len(agents),
        "stats": dict(stats),
        "statuses": dict(rest.statuses),
        "calls": len(rest.latency),
        "call_p50_ms": percentile(rest.latency, 0.5),
        "call_p99_ms": percentile(rest.latency, 0.99),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    raise_file_limit()
    with open(sys.argv[1]) as f:
        uvloop.run(main(json.load(f)))
