"""A soak: one node (`band serve` on SQLite) under mixed load for 20 minutes, sampled every 30 s.

The load comes from three processes besides the node's:

- this one: people posting mentions over REST at ``--rate`` a second, one lane per room, each
  post kept with its id once answered 2xx (``tests/faults/load.Burst``, as in the fault suite);
- ``bench/_soak_agents.py``: ``--agents`` agent sockets (``--agents-per-room`` to a room), each
  answering every mention as a turn does (claim, a ``tool_call`` event, a reply, processed),
  with one socket aborted every ``--cut-every`` seconds and its agent reconnecting, joining
  again and draining ``/next``;
- ``bench/_soak_people.py``: people reading histories (``--reads``), the web app's pages
  (``--pages``), files uploaded and downloaded with their bytes compared (``--files``), and a
  person's socket in a few rooms.

Every ``--sample`` seconds: the node's RSS and open file descriptors (psutil), its event loop's
tasks and live sockets, the 5xx answers it gave and its p99 request latency over the window
(``/metrics``), the database's size (the SQLite file and its WAL). When the load stops, the
fault suite's checker (``tests/faults/checker.settle``) reads every room and judges what was
acknowledged: found or lost, answered once, duplicated, left unanswered, in order. The mention
to reply latency (server timestamps) comes from those same rooms, by the window the mention was
posted in.

Targets, after ``--warm-up`` minutes: RSS grows under 5%, descriptors and tasks flat (within
2%, or 10), no 5xx at all, nothing acknowledged lost (the checker's verdict). Beside the RSS,
what SQLite holds of it (``band_sqlite_memory_bytes``: page caches, bounded per connection),
and the RSS less that, which tells a cache filling up from a leak.

    .venv/bin/python -m bench.soak [--minutes 20] [--warm-up 2] [--sample 30] [--agents 1000]
        [--agents-per-room 20] [--rate 200] [--cut-every 3] [--reads 5] [--pages 2] [--files 1]
        [--prefill TURNS_PER_ROOM]

Prints a table and writes bench/results/soak.json (``--out``); exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the fault suite's load, checker and node process

from bench._soak_figures import (  # noqa: E402
    Sample,
    judge,
    progress,
    reply_latency,
    route_times,
    scrape,
    table,
    take_sample,
)
from bench._socket_swarm import raise_file_limit  # noqa: E402
from compat.compat_harness import AgentCreds, Person  # noqa: E402
from faults.checker import settle  # noqa: E402
from faults.cluster import NodeProcess  # noqa: E402
from faults.load import Burst, BurstResult  # noqa: E402

RESULTS = ROOT / "bench" / "results"
# Quiet before a sample at rest: longer than uvicorn's keep-alive (5 s), so the node has closed
# every idle HTTP connection and holds only its sockets, files and listener.
QUIET = 6.0


@dataclass
class World:
    person: Person
    agents: list[AgentCreds]
    rooms: list[str]
    room_agents: list[list[AgentCreds]]


@dataclass
class Soak:
    """What one run measured: the samples, the processes' results and the checker's report."""

    args: dict[str, Any]
    load_average_before: float
    samples: list[Sample] = field(default_factory=list)  # under load, every --sample s
    rest: list[Sample] = field(default_factory=list)  # at rest, before the load and after it
    held_seconds: float = 0.0  # posting held back while the agents' backlog was too long
    agents: dict[str, Any] = field(default_factory=dict)
    people: dict[str, Any] = field(default_factory=dict)
    posts: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    reply_p99_ms: dict[int, float | None] = field(default_factory=dict)  # by window
    routes: list[dict[str, Any]] = field(default_factory=list)  # mean ms, first and last window
    targets: dict[str, Any] = field(default_factory=dict)
    node_log: Path | None = None  # copied beside the JSON at the end

    @property
    def ok(self) -> bool:
        return all(t["met"] for t in self.targets.values() if "met" in t)


# -- the world and the node ------------------------------------------------------------------


async def seed(data: Path, agents: int, per_room: int) -> World:
    """A person, ``agents`` agents of theirs, and rooms of ``per_room`` agents with the person
    in every one, written in one unit before the node starts."""
    from band_server.services.identity import accounts
    from band_server.services.rooms import membership as rooms
    from band_server.store.db import Database
    from band_server.store.migrate import upgrade

    db = Database(f"sqlite+aiosqlite:///{data / 'band.db'}")
    try:
        await upgrade(db.engine)
        async with db.write() as session:
            user, key = await accounts.create_user(session, name="Alice", handle="alice")
            person = Person(user.id, key, user.handle, user.name)
            owner = accounts.user_principal(user)
            made: list[AgentCreds] = []
            for i in range(agents):
                agent, agent_key = await accounts.create_agent(
                    session, user, name=f"Soak {i:04d}", description="An agent of the soak"
                )
                made.append(AgentCreds(agent.id, agent_key, agent.handle, agent.name))
            room_ids, room_agents = [], []
            for start in range(0, agents, per_room):
                room, _ = await rooms.create_room(
                    session, owner, title=f"Soak {start // per_room}", task_id=None
                )
                for creds in made[start : start + per_room]:
                    await rooms.add_participant(session, owner, room, creds.id)
                room_ids.append(room.id)
                room_agents.append(made[start : start + per_room])
        return World(person, made, room_ids, room_agents)
    finally:
        await db.dispose()


async def prefilled(data: Path, turns: int) -> None:
    """``turns`` finished turns written into every room before the node starts
    (``bench.prefill``): the run starts at the size a long run ends at."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from bench.prefill import prefill

    engine = create_async_engine(f"sqlite+aiosqlite:///{data / 'band.db'}")
    started = time.monotonic()
    try:
        written = await prefill(engine, turns)
    finally:
        await engine.dispose()
    size = (data / "band.db").stat().st_size / 2**20
    print(
        f"prefilled {written} messages ({size:.0f} MiB) in {time.monotonic() - started:.0f} s",
        flush=True,
    )


# -- the load processes ----------------------------------------------------------------------


class Child:
    """A load process driven by lines on its stdin; it answers with JSON lines."""

    def __init__(self, module: str, spec: dict[str, Any], work: Path) -> None:
        self.module, self.spec_file = module, work / f"{module.rsplit('.', 1)[-1]}.json"
        self.spec_file.write_text(json.dumps(spec))
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self, within: float) -> dict[str, Any]:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            self.module,
            str(self.spec_file),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            cwd=ROOT,
        )
        return await self.line(within)

    async def line(self, within: float) -> dict[str, Any]:
        assert self.proc is not None and self.proc.stdout is not None
        raw = await asyncio.wait_for(self.proc.stdout.readline(), within)
        if not raw:
            raise RuntimeError(f"{self.module} ended (status {await self.proc.wait()})")
        answer: dict[str, Any] = json.loads(raw)
        return answer

    async def tell(self, what: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(f"{what}\n".encode())
        await self.proc.stdin.drain()

    async def finish(self) -> dict[str, Any]:
        await self.tell("exit")
        result = await self.line(120)
        assert self.proc is not None
        await asyncio.wait_for(self.proc.wait(), 30)
        return result

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()


# -- the run ---------------------------------------------------------------------------------


async def run(args: argparse.Namespace, work: Path) -> Soak:
    soak = Soak(args=vars(args), load_average_before=round(os.getloadavg()[0], 2))
    data = work / "data"
    data.mkdir(parents=True)
    print(f"seeding {args.agents} agents ...", flush=True)
    world = await seed(data, args.agents, args.agents_per_room)
    if args.prefill:
        await prefilled(data, args.prefill)
    node = NodeProcess(data, work / "logs", name="soak")
    agents = Child(
        "bench._soak_agents",
        {
            "host": "127.0.0.1",
            "port": node.port,
            "agents": [
                [a.id, a.key, room]
                for room, members in zip(world.rooms, world.room_agents, strict=True)
                for a in members
            ],
            "connections": args.agent_connections,
            "cut_every": args.cut_every,
        },
        work,
    )
    people = Child(
        "bench._soak_people",
        {
            "url": node.url,
            "reader_key": world.person.key,
            "web_key": world.person.key,
            "uploader_key": world.person.key,
            "rooms": world.rooms,
            "reads": args.reads,
            "pages": args.pages,
            "files": args.files,
            "watched_rooms": min(5, len(world.rooms)),
        },
        work,
    )
    try:
        await node.start(within=90)
        soak.node_log = node.log_path
        print(f"{args.agents} agents connecting ...", flush=True)
        connected = await agents.start(within=max(120, args.agents / 5))
        print(f"agents connected in {connected['seconds']} s", flush=True)
        await drive(soak, args, world, node, agents, people)
    finally:
        agents.kill()
        people.kill()
        node.stop()
    return soak


async def drive(
    soak: Soak,
    args: argparse.Namespace,
    world: World,
    node: NodeProcess,
    agents: Child,
    people: Child,
) -> None:
    seconds = args.minutes * 60
    burst = Burst(
        rooms=tuple(world.rooms),
        poster=lambda _: world.person,
        agents=tuple(world.agents),
        room_agents=lambda i: world.room_agents[i],
        node_urls=lambda: [node.url],
        per_room=math.ceil(args.rate * seconds / len(world.rooms)) + 1,
        rate=args.rate,
    )
    assert node.proc is not None
    pid, data = node.proc.pid, node.data_dir

    async def sample(t: float) -> Sample:
        return await take_sample(pid, node.url, data, t, burst.acknowledged)

    await asyncio.sleep(QUIET)
    soak.rest.append(await sample(-1.0))
    await people.start(within=60)
    started, started_wall = time.monotonic(), time.time()
    posting = asyncio.create_task(burst.run())
    pacing = asyncio.create_task(keep_up(soak, burst, node.url, args.rate * args.backlog))
    soak.samples.append(await sample(0.0))
    for n in range(1, math.ceil(seconds / args.sample) + 1):
        await asyncio.sleep(max(0.0, started + n * args.sample - time.monotonic()))
        if n * args.sample >= seconds:
            pacing.cancel()
            burst.stop()
        soak.samples.append(await sample(time.monotonic() - started))
        print(progress(soak.samples[-1], soak.samples[-2]), flush=True)
    result = await posting
    await agents.tell("stop")
    await people.tell("stop")
    print(f"load stopped: {len(result.acks)} mentions acknowledged; judging ...", flush=True)
    rooms: dict[str, list[dict[str, Any]]] = {}

    def read(histories: dict[str, list[dict[str, Any]]]) -> None:
        rooms.update(histories)
        rows = sum(len(messages) for messages in histories.values())
        print(f"  read {rows} messages and events of {len(histories)} rooms", flush=True)

    report = await settle(
        "soak",
        result,
        node.url,
        world.person.key,
        tuple(world.rooms),
        {a.id for a in world.agents},
        stall=300,
        cap=max(360.0, seconds),
        on_histories=read,
    )
    await asyncio.sleep(QUIET)
    soak.rest.append(await sample(time.monotonic() - started))
    soak.report = asdict(report)
    soak.posts = posts_of(result)
    soak.reply_p99_ms = reply_latency(rooms, started_at=started_wall, window=args.sample)
    soak.agents = await agents.finish()
    soak.people = await people.finish()
    soak.targets = judge(soak.samples, (soak.rest[0], soak.rest[1]), args.warm_up * 60, report)
    warm = next(
        i for i, x in enumerate(soak.samples) if x.t >= args.warm_up * 60 or x is soak.samples[-1]
    )
    first = (soak.samples[max(warm - 1, 0)], soak.samples[warm])
    soak.routes = route_times(first, (soak.samples[-2], soak.samples[-1]))


async def keep_up(soak: Soak, burst: Burst, url: str, limit: float) -> None:
    """Posting waits while more than ``limit`` mentions are open (delivered or claimed, not
    yet answered) and goes on below half of it: a machine that can't serve the offered rate
    keeps a bounded backlog instead of one that grows all run; the time held is reported."""
    held_since: float | None = None
    try:
        while True:
            await asyncio.sleep(5)
            waiting = (await scrape(url))["open"]
            if held_since is None and waiting > limit:
                held_since = time.monotonic()
                burst.hold()
            elif held_since is not None and waiting < limit / 2:
                soak.held_seconds += time.monotonic() - held_since
                held_since = None
                burst.release()
    finally:
        if held_since is not None:
            soak.held_seconds += time.monotonic() - held_since
            burst.release()


def posts_of(result: BurstResult) -> dict[str, Any]:
    return {
        "acknowledged": len(result.acks),
        "unacknowledged": len(result.unacknowledged),
        "refused": len(result.refused),
        "retries": result.retries,
        "seconds": round(result.seconds, 1),
        "latency_ms": result.latency_ms(),
    }


def report_out(soak: Soak, out: Path) -> None:
    rows = table(soak.samples, soak.reply_p99_ms, soak.args["sample"])
    print()
    if rows:
        widths = {k: max(len(k), *(len(str(r[k])) for r in rows)) for k in rows[0]}
        print(" ".join(f"{k:>{w}}" for k, w in widths.items()))
        for row in rows:
            print(" ".join(f"{row[k]!s:>{w}}" for k, w in widths.items()))
    r = soak.report
    print(
        f"\nacknowledged={r['acknowledged']} found={r['found']} lost={r['lost']} "
        f"duplicated={r['duplicated']} once={r['answered_once']} failed={r['failed_visibly']} "
        f"unanswered={r['unanswered']} processing={r['processing']} "
        f"order_violations={r['order_violations']} settle={r['settle_seconds']}s"
    )
    print(f"posts: {soak.posts}; held back {soak.held_seconds:.0f} s (agents' backlog)")
    print(f"agents: {soak.agents.get('stats')} statuses={soak.agents.get('statuses')}")
    print(f"people: {soak.people.get('counts')}")
    print(
        "routes by their share of the node's time in the last window"
        " (ms, first window and last: mean, p50, p99):"
    )
    for r in soak.routes:
        print(
            f"  {r['share_last']:>6.1%} {r['route']:<60} {r['mean_ms_first']!s:>8} "
            f"{r['mean_ms_last']:>8} | {r['p50_ms_first']!s:>7} {r['p50_ms_last']!s:>7} | "
            f"{r['p99_ms_first']!s:>7} {r['p99_ms_last']!s:>7} ms  ({r['requests_last']} requests)"
        )
    for name, target in soak.targets.items():
        verdict = "met" if target.get("met") else "MISSED" if "met" in target else "(figure)"
        print(f"target {name:>15}: {verdict}  {target}")
    print(f"load average before: {soak.load_average_before}, after: {os.getloadavg()[0]:.2f}")
    out.parent.mkdir(parents=True, exist_ok=True)
    document = asdict(soak) | {"table": rows, "ok": soak.ok}
    for sample in document["samples"] + document["rest"]:
        sample.pop("buckets")
        sample.pop("routes")
        sample.pop("route_buckets")
    out.write_text(json.dumps(document, indent=2, default=str))
    print(f"wrote {out}")


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--minutes", type=float, default=20.0, help="minutes of load")
    p.add_argument("--warm-up", type=float, default=2.0, help="minutes before targets apply")
    p.add_argument("--sample", type=float, default=30.0, help="seconds between samples")
    p.add_argument("--agents", type=int, default=1000, help="agent sockets held")
    p.add_argument("--agents-per-room", type=int, default=20, help="agents in each room")
    p.add_argument("--rate", type=float, default=200.0, help="mentions posted per second")
    p.add_argument("--cut-every", type=float, default=3.0, help="seconds between socket cuts")
    p.add_argument("--reads", type=float, default=5.0, help="history pages read per second")
    p.add_argument("--pages", type=float, default=2.0, help="web app pages opened per second")
    p.add_argument("--files", type=float, default=1.0, help="uploads (+ a download) per second")
    p.add_argument(
        "--agent-connections", type=int, default=200, help="the agents' HTTP connections, shared"
    )
    p.add_argument(
        "--backlog",
        type=float,
        default=10.0,
        help="posting waits while more than this many seconds of mentions are unanswered",
    )
    p.add_argument(
        "--prefill",
        type=int,
        default=0,
        help="finished turns written into every room before the node starts (bench.prefill):"
        " the database a long run ends with, from the first minute",
    )
    p.add_argument("--out", type=Path, default=RESULTS / "soak.json", help="the JSON written")
    return p


def main() -> None:
    args = parser().parse_args()
    raise_file_limit()  # inherited by the node: a descriptor per agent socket
    with tempfile.TemporaryDirectory(prefix="band-soak-") as work:
        soak = asyncio.run(run(args, Path(work)))
        if soak.node_log is not None and soak.node_log.exists():
            kept = args.out.with_name(f"{args.out.stem}-node.log")
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(soak.node_log, kept)
    report_out(soak, args.out)
    raise SystemExit(0 if soak.ok else 1)


if __name__ == "__main__":
    main()
