"""Hold many idle agent sockets: `python -m bench._socket_swarm SPEC_FILE` (bench-only).

SPEC: {"ws_url", "agents": [[agent_id, key], ...], "in_flight", "hold_seconds", "control"}.
Each agent connects, joins ``agent_control`` and ``agent_rooms`` (join latency measured while
the others are still connecting), and stays idle, sending a Phoenix heartbeat every 25 s as
the official client does. Once all are connected, one heartbeat round checks that every
socket is answered. Between phases it prints one JSON line and waits for a line on stdin
(so the orchestrator can read the server's memory); at the end it prints the results.
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from typing import Any

import uvloop
import websockets
from websockets.asyncio.client import ClientConnection

HEARTBEAT_EVERY = 25.0


def raise_file_limit() -> int:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


class Agent:
    def __init__(self, agent_id: str, key: str) -> None:
        self.agent_id = agent_id
        self.key = key
        self.ws: ClientConnection | None = None
        self.ref = 10
        self.waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}

    async def call(self, frame: list[Any]) -> dict[str, Any]:
        assert self.ws is not None
        ref = str(frame[1])
        fut = asyncio.get_running_loop().create_future()
        self.waiting[ref] = fut
        await self.ws.send(json.dumps(frame))
        return await fut

    async def read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                frame = json.loads(raw)
                fut = self.waiting.pop(str(frame[1]), None)
                if fut is not None and not fut.done():
                    fut.set_result(frame[4])
        except websockets.ConnectionClosed:
            pass

    def next_ref(self) -> str:
        self.ref += 1
        return str(self.ref)


async def run(spec: dict[str, Any]) -> None:
    agents = [Agent(a, k) for a, k in spec["agents"]]
    gate = asyncio.Semaphore(int(spec["in_flight"]))
    join_ms: list[float] = []
    failures: list[str] = []
    readers: list[asyncio.Task[None]] = []

    async def connect(agent: Agent) -> None:
        async with gate:
            url = f"{spec['ws_url']}?vsn=2.0.0&agent_id={agent.agent_id}"
            try:
                agent.ws = await websockets.connect(
                    url,
                    additional_headers={"x-api-key": agent.key},
                    compression=None,
                    ping_interval=None,
                    open_timeout=60,
                )
                readers.append(asyncio.create_task(agent.read()))
                for topic in ("agent_control", "agent_rooms"):
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

    async def heartbeats(only_once: bool = False) -> tuple[int, int]:
        live = [a for a in agents if a.ws is not None]
        answered = 0

        async def beat(agent: Agent) -> bool:
            ref = agent.next_ref()
            try:
                reply = await asyncio.wait_for(
                    agent.call([None, ref, "phoenix", "heartbeat", {}]), 30
                )
            except Exception:
                return False
            return reply.get("status") == "ok"

        results = await asyncio.gather(*(beat(a) for a in live))
        answered = sum(results)
        return answered, len(live)

    async def keep_alive() -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_EVERY)
            await heartbeats()

    started = time.perf_counter()
    alive = asyncio.create_task(keep_alive())
    await asyncio.gather(*(connect(a) for a in agents))
    connect_s = time.perf_counter() - started
    answered, live = await heartbeats()
    print(json.dumps({"phase": "connected", "live": live}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    await asyncio.sleep(float(spec.get("hold_seconds", 0)))
    answered_after, live_after = await heartbeats()
    alive.cancel()
    result = {
        "phase": "done",
        "sockets": len(agents),
        "connected": live,
        "connect_seconds": round(connect_s, 1),
        "join_p50_ms": percentile(join_ms, 0.5),
        "join_p99_ms": percentile(join_ms, 0.99),
        "heartbeats_answered": answered,
        "heartbeats_answered_after_hold": answered_after,
        "live_after_hold": live_after,
        "failures": len(failures),
        "first_failures": failures[:5],
        "client_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    for a in agents:
        if a.ws is not None:
            await a.ws.close()
    for r in readers:
        r.cancel()
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    raise_file_limit()
    with open(sys.argv[1]) as f:
        uvloop.run(run(json.load(f)))
