"""Server CPU per REST call on the agent's path, and per agent turn, beside the floor.

Issue 9's target 2: at most 1 ms of server CPU (median over the calls of a turn) per REST call
an agent makes, and at most 8 ms per agent turn. Each call is sent ``--calls`` times one after
another over real HTTP (keep-alive, loopback) to ``band serve``'s stack on SQLite
(``bench/_platform.py``), with the agent's and the person's sockets joined to the room (so
every push the platform makes is paid for, as in a real turn); the figure is the server
process's CPU (psutil: user + system, every thread) over the batch, divided by the calls.
The calls, as our SDK makes them in a turn (``band.runtime``): ``/processing``, ``/activity``
(working, then not), a tool-call and a tool-result event (keyed), the reply (keyed),
``/processed``; measured besides: the same posts unkeyed, ``/next`` with messages waiting,
``GET /agent/me`` and the person's mention post. A *turn* is the person's mention post, its push
to the agent's socket, then the seven calls above, the people's pushes included.

The floor, in the same run: ``bench/floor_app.py``'s ``POST /post`` (one durable SQLite insert
and one WebSocket frame to a listener, on the same server stack).

``--before DIR`` serves a second build from the source tree ``DIR`` (``DIR/src`` first on the
server's ``PYTHONPATH``, e.g. a ``git archive`` export of main) and alternates the builds
round by round, so both are measured under the same load.

    .venv/bin/python -m bench.rest_calls [--calls 300] [--turns 200] [--rounds 3]
        [--before DIR]

Prints a table (medians over the rounds) and writes bench/results/rest_calls.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
import websockets

from bench._platform import Seed, free_port, seed, serve_floor, serve_platform

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
TURN_CALLS = (
    "processing",
    "activity",
    "event keyed",
    "event keyed",
    "message keyed",
    "activity",
    "processed",
)
"""The agent's calls in one turn of our SDK, in order (two activity reports, two events)."""
EXTRA_CALLS = ("next", "event", "message", "agent me", "person post")
WAIT = 30.0


def cpu_seconds(pid: int) -> float:
    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


@dataclass
class Listener:
    """A joined Phoenix socket that drains its frames, counting them by event."""

    ws: Any
    counts: dict[str, int] = field(default_factory=dict)
    task: asyncio.Task[None] | None = None
    seen: asyncio.Event = field(default_factory=asyncio.Event)

    async def drain(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for raw in self.ws:
                event = json.loads(raw)[3]
                self.counts[event] = self.counts.get(event, 0) + 1
                self.seen.set()

    async def wait_for(self, event: str, count: int) -> None:
        deadline = time.monotonic() + WAIT
        while self.counts.get(event, 0) < count:
            if time.monotonic() > deadline:
                raise RuntimeError(f"socket saw {self.counts} waiting for {count} {event}")
            self.seen.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.seen.wait(), 1.0)


async def listen(url: str, key: str, topic: str) -> Listener:
    ws = await websockets.connect(
        url, additional_headers={"x-api-key": key}, compression=None, ping_interval=None
    )
    await ws.send(json.dumps(["1", "1", topic, "phx_join", {}]))
    reply = json.loads(await ws.recv())
    if reply[4]["status"] != "ok":
        raise RuntimeError(f"join refused: {reply}")
    listener = Listener(ws)
    listener.task = asyncio.create_task(listener.drain())
    return listener


async def heartbeat(listeners: list[Listener]) -> None:
    ref = 0
    while True:
        await asyncio.sleep(15)
        for listener in listeners:
            ref += 1
            await listener.ws.send(json.dumps([None, str(ref), "phoenix", "heartbeat", {}]))


def seed_by(tree: Path, data: Path) -> Seed:
    """The seed written by another build's own code (its schema may be older than ours)."""
    code = (
        "import asyncio, dataclasses, json, pathlib, sys;"
        "from bench._platform import seed;"
        "s = asyncio.run(seed(pathlib.Path(sys.argv[1])));"
        "print(json.dumps(dataclasses.asdict(s)))"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree / "src"), str(ROOT)]))
    out = subprocess.run(
        [sys.executable, "-c", code, str(data)], env=env, capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode != 0:
        raise RuntimeError(f"seeding with {tree} failed:\n{out.stderr[-2000:]}")
    return Seed(**json.loads(out.stdout.strip().splitlines()[-1]))


class Platform:
    """One platform server (a build), its seeded room, and the agent's and person's clients."""

    def __init__(self, name: str, tree: Path | None) -> None:
        self.name = name
        data = Path(tempfile.mkdtemp(prefix="band-rest-calls-"))
        self.seed: Seed = asyncio.run(seed(data)) if tree is None else seed_by(tree, data)
        self.port = free_port()
        self.proc = serve_platform(data, self.port, pythonpath=tree and tree / "src")
        self.pending: list[str] = []

    async def open(self) -> None:
        s = self.seed
        base = f"http://127.0.0.1:{self.port}/api/v1"
        self.agent = httpx.AsyncClient(base_url=base, headers={"x-api-key": s.agent_key})
        self.person = httpx.AsyncClient(base_url=base, headers={"x-api-key": s.user_key})
        ws = f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket?vsn=2.0.0"
        topic = f"chat_room:{s.room_id}"
        self.agent_socket = await listen(f"{ws}&agent_id={s.agent_id}", s.agent_key, topic)
        self.person_socket = await listen(ws, s.user_key, topic)
        self.beat = asyncio.create_task(heartbeat([self.agent_socket, self.person_socket]))
        self.room = f"/agent/chats/{s.room_id}"
        self.mention_agent = {"message": {"content": "ping", "mentions": [{"id": s.agent_id}]}}
        self.reply = {"message": {"content": "pong", "mentions": [{"id": s.user_id}]}}

    async def close(self) -> None:
        self.beat.cancel()
        for listener in (self.agent_socket, self.person_socket):
            await listener.ws.close()
        await self.agent.aclose()
        await self.person.aclose()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()

    async def call(self, name: str, message_id: str | None = None) -> None:
        """One of the agent's calls (or the person's post), checked for its 2xx."""
        try:
            r = await self._send(name, message_id)
        except (httpx.ReadError, httpx.RemoteProtocolError):
            # The server closed a connection idle past its keep-alive timeout just as the
            # client reused it (the request was not read): send it again, once.
            r = await self._send(name, message_id)
        if r.status_code >= 300:
            raise RuntimeError(f"{self.name} {name}: {r.status_code} {r.text[:300]}")
        if name == "person post":
            self.pending.append(r.json()["data"]["id"])

    def _send(self, name: str, message_id: str | None) -> Awaitable[httpx.Response]:
        keyed = {"Idempotency-Key": str(uuid.uuid4())}
        room, agent = self.room, self.agent
        if name == "person post":
            path = f"/me/chats/{self.seed.room_id}/messages"
            return self.person.post(path, json=self.mention_agent)
        if name in ("processing", "processed"):
            return agent.post(f"{room}/messages/{message_id}/{name}")
        if name == "activity":
            return agent.post(f"{room}/activity", json={"working": True})
        if name.startswith("event"):
            event = {"event": {"content": "tool", "message_type": "tool_call", "metadata": None}}
            return agent.post(
                f"{room}/events", json=event, headers=keyed if "keyed" in name else None
            )
        if name.startswith("message"):
            return agent.post(
                f"{room}/messages", json=self.reply, headers=keyed if "keyed" in name else None
            )
        if name == "next":
            return agent.get(f"{room}/messages/next")
        if name == "agent me":
            return agent.get("/agent/me")
        raise ValueError(name)

    async def measure(self, name: str, n: int) -> float:
        """Server CPU ms per call over ``n`` calls of one kind, one after another."""
        ids: list[str] = []
        if name in ("processing", "processed", "next"):
            for _ in range(n):  # the messages to mark, posted before the measured window
                await self.call("person post")
            await self.agent_socket.wait_for("message_created", self._created + n)
            ids, self.pending = self.pending, []
            self._created += n
            if name == "processed":
                for message_id in ids:
                    await self.call("processing", message_id)
        await self._settle()
        before = cpu_seconds(self.proc.pid)
        for i in range(n):
            await self.call(name, ids[i] if ids else None)
        await self._settle()
        used = cpu_seconds(self.proc.pid) - before
        if name == "person post":
            self._created += n
            self.pending.clear()
        for message_id in ids if name != "processed" else ():  # leave nothing open
            if name == "next":
                await self.call("processing", message_id)
            await self.call("processed", message_id)
        return used * 1000 / n

    async def turns(self, n: int) -> float:
        """Server CPU ms per turn over ``n`` turns, one after another."""
        await self._settle()
        before = cpu_seconds(self.proc.pid)
        for _ in range(n):
            await self.call("person post")
            self._created += 1
            await self.agent_socket.wait_for("message_created", self._created)
            message_id = self.pending.pop()
            for name in TURN_CALLS:
                await self.call(name, message_id)
        await self._settle()
        return (cpu_seconds(self.proc.pid) - before) * 1000 / n

    _created = 0

    async def _settle(self) -> None:
        """Every push the calls made has arrived (the sockets stay quiet for 50 ms)."""
        while True:
            before = (
                sum(self.agent_socket.counts.values()),
                sum(self.person_socket.counts.values()),
            )
            await asyncio.sleep(0.05)
            after = (
                sum(self.agent_socket.counts.values()),
                sum(self.person_socket.counts.values()),
            )
            if before == after:
                return


class Floor:
    """The floor app's durable POST, with its WebSocket listener connected."""

    name = "floor"

    def __init__(self) -> None:
        self.port = free_port()
        self.proc = serve_floor(Path(tempfile.mkdtemp(prefix="band-floor-")), self.port)

    async def open(self) -> None:
        self.client = httpx.AsyncClient(base_url=f"http://127.0.0.1:{self.port}")
        self.ws = await websockets.connect(
            f"ws://127.0.0.1:{self.port}/ws", compression=None, ping_interval=None
        )
        self.listener = Listener(self.ws)
        self.listener.task = asyncio.create_task(self.listener.drain())

    async def close(self) -> None:
        await self.ws.close()
        await self.client.aclose()

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()

    async def measure(self, n: int) -> float:
        before = cpu_seconds(self.proc.pid)
        for _ in range(n):
            r = await self.client.post("/post", json={"content": "ping"})
            r.raise_for_status()
        await self.listener.wait_for("message_created", self._sent + n)
        self._sent += n
        return (cpu_seconds(self.proc.pid) - before) * 1000 / n

    _sent = 0


def unique(names: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(names))


async def one_round(
    floor: Floor, builds: list[Platform], calls: int, turns: int, rows: dict[str, Any]
) -> None:
    rows.setdefault("floor", {}).setdefault("durable post", []).append(await floor.measure(calls))
    for build in builds:
        mine = rows.setdefault(build.name, {})
        for name in [*unique(TURN_CALLS), *EXTRA_CALLS]:
            mine.setdefault(name, []).append(await build.measure(name, calls))
        mine.setdefault("turn", []).append(await build.turns(turns))


def summarise(per_call: dict[str, list[float]]) -> dict[str, Any]:
    med = {name: round(statistics.median(v), 3) for name, v in per_call.items()}
    turn_calls = [med[name] for name in TURN_CALLS]
    out: dict[str, Any] = {"per_call_ms": med}
    if turn_calls:
        out["median_of_turn_calls_ms"] = round(statistics.median(turn_calls), 3)
        out["sum_of_turn_calls_ms"] = round(sum(turn_calls), 3)
    return out


async def run(args: argparse.Namespace, floor: Floor, builds: list[Platform]) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    try:
        await floor.open()
        for b in builds:
            await b.open()
        warm = max(20, args.calls // 10)
        await one_round(floor, builds, warm, warm, {})  # imports, caches, connections
        for i in range(args.rounds):
            order = builds if i % 2 == 0 else builds[::-1]
            print(f"  round {i + 1}/{args.rounds}: {', '.join(b.name for b in order)}", flush=True)
            await one_round(floor, order, args.calls, args.turns, rows)
        await floor.close()
        for b in builds:
            await b.close()
    finally:
        floor.stop()
        for b in builds:
            b.stop()
    return rows


def report(args: argparse.Namespace, rows: dict[str, Any], load: tuple[float, float]) -> None:
    summary = {
        "floor": {"per_call_ms": {"durable post": statistics.median(rows["floor"]["durable post"])}}
    }
    names = [n for n in rows if n != "floor"]
    for name in names:
        summary[name] = summarise({k: v for k, v in rows[name].items() if k != "turn"})
        summary[name]["turn_ms"] = round(statistics.median(rows[name]["turn"]), 3)
    print(
        f"\nserver CPU ms (psutil), medians of {args.rounds} rounds; {args.calls} calls per kind,"
        f" {args.turns} turns; load average {load[0]:.2f} -> {load[1]:.2f}"
    )
    print(f"floor durable POST: {summary['floor']['per_call_ms']['durable post']:.3f} ms")
    header = f"{'call':>16} | " + " | ".join(f"{n:>8}" for n in names)
    print(header)
    print("-" * len(header))
    for call in [*unique(TURN_CALLS), *EXTRA_CALLS]:
        cells = " | ".join(f"{summary[n]['per_call_ms'][call]:>8.3f}" for n in names)
        print(f"{call:>16} | {cells}")
    print("-" * len(header))
    for label, key in (
        ("median, turn calls", "median_of_turn_calls_ms"),
        ("sum, turn calls", "sum_of_turn_calls_ms"),
        ("per turn", "turn_ms"),
    ):
        print(f"{label:>16} | " + " | ".join(f"{summary[n][key]:>8.3f}" for n in names))
    for n in names:
        s = summary[n]
        print(
            f"{n}: median per call {s['median_of_turn_calls_ms']} ms (target <= 1),"
            f" per turn {s['turn_ms']} ms (target <= 8)"
        )
    RESULTS.mkdir(exist_ok=True)
    out = {
        "args": vars(args),
        "load_average": load,
        "turn_calls": list(TURN_CALLS),
        "summary": summary,
        "rounds": rows,
    }
    (RESULTS / "rest_calls.json").write_text(json.dumps(out, indent=2))
    print(f"wrote {RESULTS / 'rest_calls.json'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="calls of each kind per round")
    parser.add_argument("--turns", type=int, default=200, help="turns per round")
    parser.add_argument(
        "--rounds", type=int, default=3, help="rounds, the builds alternating in each"
    )
    parser.add_argument("--before", help="a source tree to serve as the 'before' build")
    args = parser.parse_args()
    if args.before and not (Path(args.before) / "src" / "band_server").is_dir():
        parser.error(f"--before {args.before}: no src/band_server in it")
    load0 = os.getloadavg()[0]
    floor = Floor()
    builds: list[Platform] = []
    try:
        builds.append(Platform("band", None))
        if args.before:
            builds.insert(0, Platform("before", Path(args.before).resolve()))
    except BaseException:  # a build that does not start: stop what did
        floor.stop()
        for b in builds:
            b.stop()
        raise
    rows = asyncio.run(run(args, floor, builds))
    report(args, rows, (load0, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
