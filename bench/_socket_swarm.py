"""Hold many idle agent sockets: `python -m bench._socket_swarm SPEC_FILE` (bench-only).

SPEC: {"ws_url", "agents": [[agent_id, key], ...], "in_flight", "rate", "hold_seconds",
"topics", "sources", "start_offset"}. Each agent connects from one of ``sources`` (loopback
addresses of 127.0.0.0/8, one per ``SOCKETS_PER_SOURCE`` sockets, so no source runs out of
ephemeral ports), joins its own ``topics`` (default ``agent_control``, ``agent_rooms`` and
``agent_contacts``; join latency measured while the others are still connecting), and stays
idle, sending a Phoenix heartbeat every 30 s after its own connect (so heartbeats are spread,
not a burst). ``start_offset`` (seconds) shifts this swarm's schedule, so several swarm
processes interleave their connects. ``rate`` > 0 paces the connects: agent i starts at
``i / rate`` seconds (open loop, at most ``in_flight`` at a time; how far the client fell
behind its schedule is reported); ``rate`` 0 connects as fast as ``in_flight`` handshakes at a
time allow, which measures the highest connect rate the server (and this client) sustain.
Once all are connected, one heartbeat round checks that every socket is answered. Between
phases it prints one JSON line and waits for a line on stdin (so the orchestrator can read the
server's memory); at the end it prints the results.

``client`` picks the WebSocket client: ``picows`` (the default: its frames are parsed and
masked in C, so the swarm's own CPU, which shares the machine's cores with the servers it
measures, stays small) or ``websockets`` (the asyncio client the swarm used before; the two
are compared on the same sockets by ``tests/bench/test_socket_swarm.py``).
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from typing import Any

import picows
import uvloop
import websockets
from websockets.asyncio.client import ClientConnection

HEARTBEAT_EVERY = 30.0
SOCKETS_PER_SOURCE = 5000
TOPICS = ("agent_control", "agent_rooms", "agent_contacts")


def raise_file_limit() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Agent:
    """One agent's socket through ``websockets``' asyncio client."""

    __slots__ = ("agent_id", "key", "last_beat", "reader", "ref", "waiting", "ws")

    def __init__(self, agent_id: str, key: str) -> None:
        self.agent_id = agent_id
        self.key = key
        self.ws: ClientConnection | None = None
        self.ref = 10
        self.last_beat = 0.0
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.reader: asyncio.Task[None] | None = None  # websockets' client only

    @property
    def live(self) -> bool:
        return self.ws is not None

    async def open(self, url: str, source: str | None) -> None:
        self.ws = await websockets.connect(
            url,
            additional_headers={"x-api-key": self.key},
            compression=None,
            ping_interval=None,
            open_timeout=60,
            local_addr=None if source is None else (source, 0),
        )
        self.reader = asyncio.create_task(self.read())

    async def send(self, text: str) -> None:
        assert self.ws is not None
        await self.ws.send(text)

    async def call(self, frame: list[Any]) -> dict[str, Any]:
        ref = str(frame[1])
        fut = asyncio.get_running_loop().create_future()
        self.waiting[ref] = fut
        await self.send(json.dumps(frame))
        reply: dict[str, Any] = await fut
        return reply

    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                answered(self.waiting, raw)
        except websockets.ConnectionClosed:
            pass

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    def next_ref(self) -> str:
        self.ref += 1
        return str(self.ref)

    async def beat(self) -> bool:
        self.last_beat = time.monotonic()
        try:
            reply = await asyncio.wait_for(
                self.call([None, self.next_ref(), "phoenix", "heartbeat", {}]), 30
            )
        except Exception:
            return False
        return reply.get("status") == "ok"


class PicoAgent(Agent):
    """One agent's socket through picows (frames parsed and masked in C; pings answered)."""

    __slots__ = ("transport",)

    def __init__(self, agent_id: str, key: str) -> None:
        super().__init__(agent_id, key)
        self.transport: picows.WSTransport | None = None

    @property
    def live(self) -> bool:
        return self.transport is not None

    async def open(self, url: str, source: str | None) -> None:
        waiting = self.waiting
        self.transport, _ = await picows.ws_connect(
            lambda: _PicoListener(waiting),
            url,
            extra_headers={"x-api-key": self.key},
            websocket_handshake_timeout=60,
            local_addr=None if source is None else (source, 0),
        )

    async def send(self, text: str) -> None:
        assert self.transport is not None
        if self.transport.is_disconnected:  # as websockets' client raises on a closed socket
            raise ConnectionError("socket closed")
        self.transport.send(picows.WSMsgType.TEXT, text.encode())

    async def close(self) -> None:
        transport = self.transport
        if transport is not None:
            transport.send_close(picows.WSCloseCode.OK)
            await transport.wait_disconnected()


class _PicoListener(picows.WSListener):
    def __init__(self, waiting: dict[str, asyncio.Future[dict[str, Any]]]) -> None:
        super().__init__()
        self.waiting = waiting

    def on_ws_frame(self, transport: picows.WSTransport, frame: picows.WSFrame) -> None:
        if frame.msg_type == picows.WSMsgType.TEXT:
            answered(self.waiting, frame.get_payload_as_bytes())
        elif frame.msg_type == picows.WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()

    def on_ws_disconnected(self, transport: picows.WSTransport) -> None:
        for fut in self.waiting.values():  # (the agent's own dict: emptied, not replaced)
            if not fut.done():
                fut.set_exception(ConnectionError("socket closed"))
        self.waiting.clear()


def answered(waiting: dict[str, asyncio.Future[dict[str, Any]]], raw: str | bytes) -> None:
    """A text frame: the reply its ref waits for, if any."""
    frame = json.loads(raw)
    fut = waiting.pop(str(frame[1]), None)
    if fut is not None and not fut.done():
        fut.set_result(frame[4])


CLIENTS: dict[str, type[Agent]] = {"picows": PicoAgent, "websockets": Agent}


async def run(spec: dict[str, Any]) -> None:
    kind = CLIENTS[spec.get("client") or "picows"]
    agents = [kind(a, k) for a, k in spec["agents"]]
    gate = asyncio.Semaphore(int(spec["in_flight"]))
    rate = float(spec.get("rate") or 0)
    offset = float(spec.get("start_offset") or 0)
    topics = spec.get("topics") or TOPICS
    sources = spec.get("sources") or [None]
    open_ms: list[float] = []
    join_ms: list[float] = []
    lag_ms: list[float] = []
    failures: list[str] = []
    background: set[asyncio.Task[bool]] = set()

    async def connect(agent: Agent, due: float, source: str | None) -> None:
        if rate:
            await asyncio.sleep(max(0.0, due - time.perf_counter()))
        async with gate:
            t_open = time.perf_counter()
            if rate:
                lag_ms.append((t_open - due) * 1000)
            url = f"{spec['ws_url']}?vsn=2.0.0&agent_id={agent.agent_id}"
            try:
                await agent.open(url, source)
                open_ms.append((time.perf_counter() - t_open) * 1000)
                agent.last_beat = time.monotonic()
                for topic in topics:
                    ref = agent.next_ref()
                    t0 = time.perf_counter()
                    reply = await asyncio.wait_for(
                        agent.call([ref, ref, f"{topic}:{agent.agent_id}", "phx_join", {}]), 60
                    )
                    join_ms.append((time.perf_counter() - t0) * 1000)
                    if reply.get("status") != "ok":
                        failures.append(f"join {topic}: {reply}")
            except Exception as exc:
                failures.append(repr(exc)[:200])

    async def heartbeats() -> tuple[int, int]:
        live = [a for a in agents if a.live]
        results = await asyncio.gather(*(a.beat() for a in live))
        return sum(results), len(live)

    async def keep_alive() -> None:
        # Each socket beats 25 s after its previous beat: spread like real clients.
        while True:
            await asyncio.sleep(1.0)
            due = time.monotonic() - HEARTBEAT_EVERY
            for agent in agents:
                if agent.live and agent.last_beat < due:
                    task = asyncio.create_task(agent.beat())
                    background.add(task)
                    task.add_done_callback(background.discard)

    alive = asyncio.create_task(keep_alive())
    cpu0 = cpu_seconds()
    started = time.perf_counter()
    await asyncio.gather(
        *(
            connect(
                a,
                started + offset + i / rate if rate else 0.0,
                sources[(i // SOCKETS_PER_SOURCE) % len(sources)],
            )
            for i, a in enumerate(agents)
        )
    )
    connect_s = time.perf_counter() - started
    client_cpu = cpu_seconds() - cpu0
    answered, live = await heartbeats()
    print(json.dumps({"phase": "connected", "live": live}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.sleep(float(spec.get("hold_seconds", 0)))
    answered_after, live_after = await heartbeats()
    alive.cancel()
    result = {
        "phase": "done",
        "sockets": len(agents),
        "offered_rate": rate or None,
        "connected": live,
        "connect_seconds": round(connect_s, 2),
        "connects_per_s": round(live / connect_s, 1) if connect_s else None,
        "open_p50_ms": percentile(open_ms, 0.5),
        "open_p99_ms": percentile(open_ms, 0.99),
        "join_p50_ms": percentile(join_ms, 0.5),
        "join_p99_ms": percentile(join_ms, 0.99),
        "schedule_lag_p99_ms": percentile(lag_ms, 0.99),
        "client_cpu_ms_per_connect": round(1000 * client_cpu / max(1, live), 3),
        "heartbeats_answered": answered,
        "heartbeats_answered_after_hold": answered_after,
        "live_after_hold": live_after,
        "failures": len(failures),
        "first_failures": failures[:5],
        "client_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        # Raw, so that the figures of several swarm processes can be merged.
        "join_ms": [round(v, 3) for v in join_ms],
        "open_ms": [round(v, 3) for v in open_ms],
        "lag_ms": [round(v, 3) for v in lag_ms],
        "client_cpu_s": round(client_cpu, 3),
    }
    await asyncio.gather(
        *(asyncio.wait_for(a.close(), 10) for a in agents if a.live),
        return_exceptions=True,
    )
    for agent in agents:
        if agent.reader is not None:
            agent.reader.cancel()
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    raise_file_limit()
    with open(sys.argv[1]) as f:
        uvloop.run(run(json.load(f)))
