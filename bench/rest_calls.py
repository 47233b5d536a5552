"""Server CPU per REST call on the agent's path, and per agent turn, beside the floor.

Issue 9's target 2: at most 1 ms of server CPU (median over the calls of a turn) per REST call
an agent makes, and at most 8 ms per agent turn. Each call is sent ``--calls`` times one after
another over real HTTP (keep-alive, loopback) to ``band serve``'s stack on SQLite
(``bench/_platform.py``), with the agent's and the person's sockets joined to the room (so
every push the platform makes is paid for, as in a real turn); the figure is the server
process's CPU (psutil: user + system, every thread) over the batch, divided by the calls.
Per call, each kind ``--calls`` times in a row: ``/processing``, ``/activity`` (alternately
working and not, so each call flips the indicator and pushes, as a turn's two do), a
tool-call event and the reply (keyed and unkeyed), ``/processed``, ``/next`` with messages
waiting, ``GET /agent/me`` and the person's mention post.

Per turn, in both shapes a turn takes (``TURN_SHAPES``): band-sdk 6.0.1's seven calls
(``/processing``, ``/activity`` working, two events, the reply, ``/activity`` not working,
``/processed``; its posts carry no key), and ours (``band.runtime``): the claim asks for the
working indicator (``Band-Working: true``), two keyed events, the keyed reply,
``/processed``: five calls where the build echoes the header, and where it does not (an
older build) the seven calls band-sdk makes, with our keys. A *turn* is the person's mention
post, its push to the agent's socket, then the shape's calls, the people's pushes included
(psutil over the whole batch). Each call of a shape is also timed on its own with the
scheduler's nanosecond counts of the server's threads (``bench.keyed_posts.cpu_of``) around
it: a push the platform sends after a call's answer counts to the next call.

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

from bench._platform import Seed, free_port, seed, seed_by, serve_floor, serve_platform
from bench.keyed_posts import cpu_of

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
CALLS = (
    "processing",
    "activity",
    "event",
    "event keyed",
    "message",
    "message keyed",
    "processed",
    "next",
    "agent me",
    "person post",
)
"""Measured one kind at a time, ``--calls`` in a row."""
BAND_SDK_TURN = (
    "processing",
    "activity on",
    "event",
    "event",
    "message",
    "activity off",
    "processed",
)
TURN_SHAPES = {
    "band-sdk": BAND_SDK_TURN,
    "ours": ("processing +working", "event keyed", "event keyed", "message keyed", "processed"),
}
"""A turn's calls in order, per SDK; ours against a build that does not echo
``Band-Working``: ``OURS_UNECHOED``."""
OURS_UNECHOED = (
    "processing +working",
    "activity on",
    "event keyed",
    "event keyed",
    "message keyed",
    "activity off",
    "processed",
)
TARGET_SHAPE = "ours"  # target 2 is about our SDK's turn
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


class Platform:
    """One platform server (a build), its seeded room, and the agent's and person's clients."""

    def __init__(self, name: str, tree: Path | None) -> None:
        self.name = name
        data = Path(tempfile.mkdtemp(prefix="band-rest-calls-"))
        self.seed: Seed = asyncio.run(seed(data)) if tree is None else seed_by(tree, data)
        self.port = free_port()
        self.proc = serve_platform(data, self.port, pythonpath=tree and tree / "src")
        self.ps = psutil.Process(self.proc.pid)
        self.pending: list[str] = []
        self.echoes = False  # whether the build starts the indicator with a claim that asks
        self._working = False  # the next "activity" call of a batch: working or not
        self._answer: httpx.Response | None = None

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
        await self.call("person post")
        self._created += 1
        await self.agent_socket.wait_for("message_created", self._created)
        probe = self.pending.pop()
        await self.call("processing +working", probe)
        assert self._answer is not None
        self.echoes = self._answer.headers.get("band-working") == "true"
        await self.call("processed", probe)

    def shape(self, sdk: str) -> tuple[str, ...]:
        """The calls of ``sdk``'s turn against this build."""
        if sdk == "ours" and not self.echoes:
            return OURS_UNECHOED
        return TURN_SHAPES[sdk]

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
        self._answer = r
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
        if name == "processing +working":
            path = f"{room}/messages/{message_id}/processing"
            return agent.post(path, headers={"Band-Working": "true"})
        if name.startswith("activity"):
            if name == "activity":  # a batch: every call flips the indicator
                self._working = not self._working
                working = self._working
            else:
                working = name == "activity on"
            return agent.post(f"{room}/activity", json={"working": working})
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
        if name == "activity" and self._working:  # leave the indicator off
            await self.call("activity off")
            self._working = False
        for message_id in ids if name != "processed" else ():  # leave nothing open
            if name == "next":
                await self.call("processing", message_id)
            await self.call("processed", message_id)
        return used * 1000 / n

    async def turns(self, n: int, calls: tuple[str, ...]) -> dict[str, Any]:
        """Server CPU ms per turn over ``n`` turns of ``calls``, one after another, and per
        call of the turn (its own interval)."""
        await self._settle()
        before = cpu_seconds(self.proc.pid)
        spent = [0.0] * len(calls)
        for _ in range(n):
            await self.call("person post")
            self._created += 1
            await self.agent_socket.wait_for("message_created", self._created)
            message_id = self.pending.pop()
            for i, name in enumerate(calls):
                t0 = cpu_of(self.ps)
                await self.call(name, message_id)
                spent[i] += cpu_of(self.ps) - t0
        await self._settle()
        return {
            "turn": (cpu_seconds(self.proc.pid) - before) * 1000 / n,
            "calls": [x * 1000 / n for x in spent],
        }

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


async def one_round(
    floor: Floor, builds: list[Platform], calls: int, turns: int, rows: dict[str, Any]
) -> None:
    rows.setdefault("floor", {}).setdefault("durable post", []).append(await floor.measure(calls))
    for build in builds:
        mine = rows.setdefault(build.name, {})
        for name in CALLS:
            mine.setdefault(name, []).append(await build.measure(name, calls))
        shapes = mine.setdefault("turns", {})
        for sdk in TURN_SHAPES:
            shapes.setdefault(sdk, []).append(await build.turns(turns, build.shape(sdk)))


def summarise(rows: dict[str, Any], shapes: dict[str, tuple[str, ...]]) -> dict[str, Any]:
    """Medians over the rounds: per call kind, and per turn shape (each call and the turn)."""
    med = {name: round(statistics.median(v), 3) for name, v in rows.items() if name != "turns"}
    out: dict[str, Any] = {"per_call_ms": med, "shapes": {}}
    for sdk, calls in shapes.items():
        measured = rows["turns"][sdk]
        per_call = [
            round(statistics.median(r["calls"][i] for r in measured), 3) for i in range(len(calls))
        ]
        out["shapes"][sdk] = {
            "calls": list(calls),
            "calls_per_turn": len(calls),
            "per_call_ms": per_call,
            "median_call_ms": round(statistics.median(per_call), 3),
            "sum_of_calls_ms": round(sum(per_call), 3),
            "turn_ms": round(statistics.median(r["turn"] for r in measured), 3),
        }
    return out


async def run(
    args: argparse.Namespace, floor: Floor, builds: list[Platform]
) -> tuple[dict[str, Any], dict[str, dict[str, tuple[str, ...]]]]:
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
    return rows, {b.name: {sdk: b.shape(sdk) for sdk in TURN_SHAPES} for b in builds}


def report(
    args: argparse.Namespace,
    rows: dict[str, Any],
    shapes: dict[str, dict[str, tuple[str, ...]]],
    load: tuple[float, float],
) -> None:
    summary: dict[str, Any] = {
        "floor": {"per_call_ms": {"durable post": statistics.median(rows["floor"]["durable post"])}}
    }
    names = [n for n in rows if n != "floor"]
    for name in names:
        summary[name] = summarise(rows[name], shapes[name])
    print(
        f"\nserver CPU ms, medians of {args.rounds} rounds; {args.calls} calls per kind,"
        f" {args.turns} turns per shape; load average {load[0]:.2f} -> {load[1]:.2f}"
    )
    print(f"floor durable POST: {summary['floor']['per_call_ms']['durable post']:.3f} ms")
    header = f"{'call, one kind in a row':>24} | " + " | ".join(f"{n:>8}" for n in names)
    print(header)
    print("-" * len(header))
    for call in CALLS:
        cells = " | ".join(f"{summary[n]['per_call_ms'][call]:>8.3f}" for n in names)
        print(f"{call:>24} | {cells}")
    for n in names:
        for sdk, shape in summary[n]["shapes"].items():
            print(f"\n{n}, {sdk}'s turn ({shape['calls_per_turn']} calls), server CPU ms:")
            for call, ms in zip(shape["calls"], shape["per_call_ms"], strict=True):
                print(f"{call:>24} | {ms:>8.3f}")
            print(f"{'median of the calls':>24} | {shape['median_call_ms']:>8.3f}")
            print(f"{'sum of the calls':>24} | {shape['sum_of_calls_ms']:>8.3f}")
            print(f"{'per turn (with the post)':>24} | {shape['turn_ms']:>8.3f}")
    print()
    for n in names:
        ours, theirs = summary[n]["shapes"][TARGET_SHAPE], summary[n]["shapes"]["band-sdk"]
        print(
            f"{n}: our turn {ours['turn_ms']} ms ({ours['calls_per_turn']} calls, median"
            f" {ours['median_call_ms']} ms; targets <= 8 and <= 1), band-sdk's"
            f" {theirs['turn_ms']} ms ({theirs['calls_per_turn']} calls)"
        )
    RESULTS.mkdir(exist_ok=True)
    out = {
        "args": vars(args),
        "load_average": load,
        "turn_shapes": {n: {sdk: list(c) for sdk, c in shapes[n].items()} for n in names},
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
    rows, shapes = asyncio.run(run(args, floor, builds))
    report(args, rows, shapes, (load0, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
