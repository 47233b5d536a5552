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

Prints a table and writes bench/results/soak.json (``--out``); exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the fault suite's load, checker and node process

from compat.compat_harness import AgentCreds, Person  # noqa: E402
from faults.checker import TOKEN, Report, settle  # noqa: E402
from faults.cluster import NodeProcess  # noqa: E402
from faults.load import Burst, BurstResult  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FLAT = (0.02, 10)  # a flat figure stays within 2% (or 10) of its value after the warm-up
RSS_GROWTH = 0.05


@dataclass
class Sample:
    """The node, once: at ``t`` seconds after the load began."""

    t: float
    rss_mib: float
    sqlite_mib: float  # of the RSS: what SQLite holds (its page caches, bounded)
    fds: int
    tasks: int
    agent_sockets: int
    db_mib: float
    answers_5xx: int
    requests: int
    buckets: dict[float, float]  # cumulative request counts by latency bound (all routes)
    acknowledged: int


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
    samples: list[Sample] = field(default_factory=list)
    agents: dict[str, Any] = field(default_factory=dict)
    people: dict[str, Any] = field(default_factory=dict)
    posts: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    reply_p99_ms: dict[int, float | None] = field(default_factory=dict)  # by window
    targets: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(t["met"] for t in self.targets.values() if "met" in t)


# -- the world and the node ------------------------------------------------------------------


async def seed(data: Path, agents: int, per_room: int) -> World:
    """A person, ``agents`` agents of theirs, and rooms of ``per_room`` agents with the person
    in every one, written in one unit before the node starts."""
    from band_server.services import accounts, rooms
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


def database_mib(data: Path) -> float:
    files = [data / name for name in ("band.db", "band.db-wal", "band.db-shm")]
    return round(sum(f.stat().st_size for f in files if f.exists()) / 2**20, 1)


async def scrape(url: str) -> dict[str, Any]:
    """The figures of the node's ``/metrics`` a sample keeps."""
    async with httpx.AsyncClient(timeout=30) as http:
        text = (await http.get(f"{url}/metrics")).text
    out: dict[str, Any] = {"tasks": 0, "agent_sockets": 0, "5xx": 0, "requests": 0, "buckets": {}}
    out["sqlite"] = 0.0
    buckets: dict[float, float] = out["buckets"]
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "band_asyncio_tasks":
                out["tasks"] = int(s.value)
            elif s.name == "band_sqlite_memory_bytes":
                out["sqlite"] = s.value
            elif s.name == "band_sockets" and s.labels.get("kind") == "agent":
                out["agent_sockets"] = int(s.value)
            elif s.name == "band_http_requests_total":
                out["requests"] += int(s.value)
                if s.labels["status"].startswith("5"):
                    out["5xx"] += int(s.value)
            elif s.name == "band_http_request_duration_seconds_bucket":
                bound = float(s.labels["le"])
                buckets[bound] = buckets.get(bound, 0.0) + s.value
    return out


async def take_sample(node: NodeProcess, t: float, acknowledged: int) -> Sample:
    assert node.proc is not None
    proc = psutil.Process(node.proc.pid)
    rss, fds = proc.memory_info().rss, proc.num_fds()
    scraped = await scrape(node.url)
    return Sample(
        t=round(t, 1),
        rss_mib=round(rss / 2**20, 1),
        sqlite_mib=round(scraped["sqlite"] / 2**20, 1),
        fds=fds,
        tasks=scraped["tasks"],
        agent_sockets=scraped["agent_sockets"],
        db_mib=database_mib(node.data_dir),
        answers_5xx=scraped["5xx"],
        requests=scraped["requests"],
        buckets=scraped["buckets"],
        acknowledged=acknowledged,
    )


def window_p99_ms(before: dict[float, float], after: dict[float, float]) -> float | None:
    """The p99 of the requests answered between two scrapes, interpolated in its bucket as
    Prometheus' ``histogram_quantile`` does."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0
    if total <= 0:
        return None
    rank, lower, below = 0.99 * total, 0.0, 0.0
    for bound, count in zip(bounds, counts, strict=True):
        if count >= rank:
            if math.isinf(bound):
                return round(lower * 1000, 1)
            share = (rank - below) / max(count - below, 1e-9)
            return round((lower + (bound - lower) * share) * 1000, 1)
        lower, below = bound, count
    return None


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
    node = NodeProcess(data, work / "logs", name="soak")
    t0 = time.time()
    spec = {"host": "127.0.0.1", "port": node.port, "t0": t0, "window": args.sample}
    agents = Child(
        "bench._soak_agents",
        {
            **spec,
            "agents": [
                [a.id, a.key, room]
                for room, members in zip(world.rooms, world.room_agents, strict=True)
                for a in members
            ],
            "connections": 48,
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
        print(f"{args.agents} agents connecting ...", flush=True)
        connected = await agents.start(within=max(120, args.agents / 5))
        print(f"agents connected in {connected['seconds']} s", flush=True)
        await people.start(within=60)
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
    started, started_wall = time.monotonic(), time.time()
    posting = asyncio.create_task(burst.run())
    soak.samples.append(await take_sample(node, 0.0, 0))
    for n in range(1, math.ceil(seconds / args.sample) + 1):
        await asyncio.sleep(max(0.0, started + n * args.sample - time.monotonic()))
        if n * args.sample >= seconds:
            burst.stop()
        sample = await take_sample(node, time.monotonic() - started, burst.acknowledged)
        soak.samples.append(sample)
        print(progress(sample, soak.samples[-2]), flush=True)
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
    soak.report = asdict(report)
    soak.posts = posts_of(result)
    soak.reply_p99_ms = reply_latency(rooms, started_at=started_wall, window=args.sample)
    soak.agents = await agents.finish()
    soak.people = await people.finish()
    soak.targets = judge_targets(soak, args, report)


def posts_of(result: BurstResult) -> dict[str, Any]:
    return {
        "acknowledged": len(result.acks),
        "unacknowledged": len(result.unacknowledged),
        "refused": len(result.refused),
        "retries": result.retries,
        "seconds": round(result.seconds, 1),
        "latency_ms": result.latency_ms(),
    }


def reply_latency(
    rooms: dict[str, list[dict[str, Any]]], *, started_at: float, window: float
) -> dict[int, float | None]:
    """p99 of mention to reply (the server's ``inserted_at`` of each), by the window the
    mention was posted in."""
    asked: dict[str, float] = {}
    answered: dict[str, float] = {}
    for messages in rooms.values():
        for m in messages:
            tokens = TOKEN.findall(str(m.get("content") or ""))
            if m.get("message_type") != "text" or not tokens:
                continue
            at = datetime.fromisoformat(str(m["inserted_at"]).replace("Z", "+00:00")).timestamp()
            (answered if m.get("sender_type") == "Agent" else asked).setdefault(tokens[-1], at)
    by_window: dict[int, list[float]] = {}
    for token, at in asked.items():
        if token in answered:
            w = int((at - started_at) // window)
            by_window.setdefault(w, []).append((answered[token] - at) * 1000)
    return {w: p99(v) for w, v in sorted(by_window.items())}


def p99(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))], 1)


def judge_targets(soak: Soak, args: argparse.Namespace, report: Report) -> dict[str, Any]:
    """The targets, each with what was measured: after the warm-up, RSS grows under 5%,
    descriptors and tasks stay flat; no 5xx at all; nothing acknowledged lost."""
    loaded = soak.samples[1:]
    warm = next((s for s in loaded if s.t >= args.warm_up * 60), loaded[-1])
    last = loaded[-1]

    def flat(name: str) -> dict[str, Any]:
        at_warm, at_end = getattr(warm, name), getattr(last, name)
        room = max(FLAT[0] * at_warm, FLAT[1])
        peak = max(getattr(s, name) for s in loaded if s.t >= warm.t)
        return {
            "after_warm_up": at_warm,
            "end": at_end,
            "peak": peak,
            "met": abs(at_end - at_warm) <= room,
        }

    growth = (last.rss_mib - warm.rss_mib) / warm.rss_mib
    return {
        "rss": {
            "after_warm_up": warm.rss_mib,
            "end": last.rss_mib,
            "growth": round(growth, 4),
            "met": growth < RSS_GROWTH,
        },
        "fds": flat("fds"),
        "tasks": flat("tasks"),
        "no_5xx": {
            "answers_5xx": soak.samples[-1].answers_5xx,
            "met": soak.samples[-1].answers_5xx == 0,
        },
        "nothing_lost": {"problems": report.problems, "met": report.ok},
    }


# -- the table -------------------------------------------------------------------------------


def progress(sample: Sample, before: Sample) -> str:
    return (
        f"  t={sample.t:6.0f}s rss={sample.rss_mib}MiB (sqlite {sample.sqlite_mib}) "
        f"fds={sample.fds} tasks={sample.tasks} "
        f"sockets={sample.agent_sockets} db={sample.db_mib}MiB "
        f"acked={sample.acknowledged} 5xx={sample.answers_5xx} "
        f"p99={window_p99_ms(before.buckets, sample.buckets)}ms"
    )


def table(soak: Soak) -> list[dict[str, Any]]:
    rows = []
    for before, s in zip(soak.samples, soak.samples[1:], strict=False):
        window = int(before.t // soak.args["sample"])
        span = max(s.t - before.t, 1e-9)
        rows.append(
            {
                "min": round(s.t / 60, 1),
                "rss MiB": s.rss_mib,
                "sqlite MiB": s.sqlite_mib,
                "fds": s.fds,
                "tasks": s.tasks,
                "sockets": s.agent_sockets,
                "db MiB": s.db_mib,
                "mentions/s": round((s.acknowledged - before.acknowledged) / span, 1),
                "req/s": round((s.requests - before.requests) / span),
                "p99 ms": window_p99_ms(before.buckets, s.buckets),
                "reply p99 ms": soak.reply_p99_ms.get(window),
                "5xx": s.answers_5xx - before.answers_5xx,
            }
        )
    return rows


def report_out(soak: Soak, out: Path) -> None:
    rows = table(soak)
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
    print(f"posts: {soak.posts}")
    print(f"agents: {soak.agents.get('stats')} statuses={soak.agents.get('statuses')}")
    print(f"people: {soak.people.get('counts')}")
    for name, target in soak.targets.items():
        verdict = "met" if target.get("met") else "MISSED" if "met" in target else "(figure)"
        print(f"target {name:>15}: {verdict}  {target}")
    print(f"load average before: {soak.load_average_before}, after: {os.getloadavg()[0]:.2f}")
    out.parent.mkdir(parents=True, exist_ok=True)
    document = asdict(soak) | {"table": rows, "ok": soak.ok}
    for sample in document["samples"]:
        sample.pop("buckets")
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
    p.add_argument("--out", type=Path, default=RESULTS / "soak.json", help="the JSON written")
    return p


def main() -> None:
    args = parser().parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by the node
    with tempfile.TemporaryDirectory(prefix="band-soak-") as work:
        soak = asyncio.run(run(args, Path(work)))
    report_out(soak, args.out)
    raise SystemExit(0 if soak.ok else 1)


if __name__ == "__main__":
    main()
