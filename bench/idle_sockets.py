"""Idle agent sockets on one node: server memory per socket, heartbeats, join latency.

N agents (each with its own key) connect to one platform node, join ``agent_control`` and
``agent_rooms`` as the SDK does, and stay idle; the client swarm runs in its own process
(``bench/_socket_swarm.py``). Beside the platform, in the same run, the floor: a bare
Phoenix-style socket on the same server stack (``bench/floor_app.py``: accept, answer joins and
heartbeats, nothing else). For each target, two fresh server processes:

- ``probe``: ``--probe`` agents connect as fast as ``--in-flight`` handshakes at a time allow;
  the connects per second reached is the most this server (and this client, on the same
  cores) sustains, and the server's CPU per connect (handshake + two joins) is measured;
- ``paced``: N agents connect at ``--rate`` connects per second (open loop). Measured: join
  latency while the others connect (p50/p99), the server's RSS per socket (RSS with N held and
  settled, minus the RSS after a warm-up, over N), heartbeats answered once all are connected
  and again after an idle hold (the server pings every socket meanwhile), and the server's CPU
  while idle.

A client that opens sockets faster than the server accepts them measures its own queue, so
the latency figure is given at a stated rate, beside the highest rate sustained. Both
processes raise their open-file limit to the hard limit; every server is stopped at the end.

    .venv/bin/python -m bench.idle_sockets [--sockets 10000] [--rate 200] [--probe 2000]
        [--in-flight 100] [--hold 30]

Prints a table and writes bench/results/idle_sockets.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

from band_server.services.identity import accounts
from band_server.store.db import Database
from band_server.store.migrate import upgrade
from bench._platform import (
    Seed,
    floor_mention_spec,
    free_port,
    mention_spec,
    seed,
    serve_floor,
    serve_platform,
)
from bench._socket_swarm import SOCKETS_PER_SOURCE
from bench.mention_latency import Target as LoadTarget
from bench.mention_latency import drive

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
WARM_UP = 3


async def seed_agents(data_dir: Path, n: int) -> list[tuple[str, str]]:
    """One person owning ``n`` agents, each with its own key (one write unit)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    db = Database(f"sqlite+aiosqlite:///{data_dir / 'band.db'}")
    await upgrade(db.engine)
    out: list[tuple[str, str]] = []
    async with db.write() as session:
        owner, _ = await accounts.create_user(session, name="Swarm Owner", handle="swarm")
        for i in range(n):
            agent, key = await accounts.create_agent(
                session, owner, name=f"idle {i}", description="An idle agent of the swarm"
            )
            out.append((agent.id, key))
    await db.dispose()
    return out


def rss_kib(pids: list[int]) -> int:
    return sum(int(psutil.Process(pid).memory_info().rss // 1024) for pid in pids)


def cpu_s(pids: list[int]) -> float:
    times = [psutil.Process(pid).cpu_times() for pid in pids]
    return float(sum(t.user + t.system for t in times))


def settled_rss(
    pid: list[int], window: float = 4.0, quiet_kib: int = 256, limit: float = 60
) -> int:
    """RSS (of all the processes) once it moves by less than ``quiet_kib`` over ``window`` s."""
    deadline = time.monotonic() + limit
    last = rss_kib(pid)
    while time.monotonic() < deadline:
        time.sleep(window)
        now = rss_kib(pid)
        if abs(now - last) < quiet_kib:
            return now
        last = now
    return last


def sources_for(k: int, per_swarm: int) -> list[str]:
    """Loopback source addresses for swarm ``k`` (127.<10+k>.x.y): one per 5,000 sockets."""
    count = per_swarm // SOCKETS_PER_SOURCE + 1
    return [f"127.{10 + k}.{i // 250}.{i % 250 + 1}" for i in range(count)]


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 2)


def merge(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of several swarm processes as one swarm's."""
    joins = [v for r in results for v in r.pop("join_ms")]
    opens = [v for r in results for v in r.pop("open_ms")]
    lags = [v for r in results for v in r.pop("lag_ms")]
    live = sum(r["connected"] for r in results)
    seconds = max(r["connect_seconds"] for r in results)
    sums = ("sockets", "connected", "heartbeats_answered", "heartbeats_answered_after_hold")
    out: dict[str, Any] = {k: sum(r[k] for r in results) for k in (*sums, "live_after_hold")}
    out.update(
        swarms=len(results),
        offered_rate=results[0]["offered_rate"] and sum(r["offered_rate"] for r in results),
        connect_seconds=seconds,
        connects_per_s=round(live / seconds, 1) if seconds else None,
        open_p50_ms=percentile(opens, 0.5),
        open_p99_ms=percentile(opens, 0.99),
        join_p50_ms=percentile(joins, 0.5),
        join_p99_ms=percentile(joins, 0.99),
        schedule_lag_p99_ms=percentile(lags, 0.99),
        client_cpu_ms_per_connect=round(
            1000 * sum(r["client_cpu_s"] for r in results) / max(1, live), 3
        ),
        failures=sum(r["failures"] for r in results),
        first_failures=[f for r in results for f in r["first_failures"]][:5],
        client_rss_mib=round(sum(r["client_rss_mib"] for r in results), 1),
    )
    return out


def swarm(
    ws_url: str | list[str],
    agents: list[tuple[str, str]],
    *,
    in_flight: int,
    rate: float,
    hold: float,
    work: Path,
    on_connected: Callable[[dict[str, Any]], dict[str, Any]],
    per_swarm: int = 12_500,
    client: str = "picows",
) -> dict[str, Any]:
    """Hold ``agents`` idle from swarm processes of at most ``per_swarm`` sockets each.

    Their connects interleave at ``rate`` in all; ``on_connected`` runs once every socket of
    every swarm is connected (and answered one heartbeat), before the hold. Several URLs (one
    per server process): swarm i connects to URL i modulo their number.
    """
    urls = [ws_url] if isinstance(ws_url, str) else ws_url
    k = max(len(urls), -(-len(agents) // per_swarm))
    k = -(-k // len(urls)) * len(urls)  # the same number of swarms on every server process
    procs: list[subprocess.Popen[str]] = []
    try:
        for i in range(k):
            spec = {
                "ws_url": urls[i % len(urls)],
                "agents": agents[i::k],
                "in_flight": max(1, in_flight // k),
                "rate": rate / k,
                "start_offset": i / rate if rate else 0,
                "hold_seconds": hold,
                "sources": sources_for(i, per_swarm),
                "client": client,
            }
            spec_file = work / f"swarm-{len(agents)}-{i}.json"
            spec_file.write_text(json.dumps(spec))
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "bench._socket_swarm", str(spec_file)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    cwd=ROOT,
                )
            )
        firsts = [json.loads(_line(p)) for p in procs]
        extra = on_connected({"live": sum(f["live"] for f in firsts)})
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("\n")
            p.stdin.flush()
        results = [json.loads(_line(p)) for p in procs]
        for p in procs:
            p.wait(120)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    result = merge(results)
    result.update(extra)
    return result


def _line(proc: subprocess.Popen[str]) -> str:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"a swarm process ended early (exit status {proc.wait()})")
    return line


class Target:
    """One kind of server under test: how to start it and where its socket is.

    ``band-redis`` is the platform configured for several nodes (one node here): the Redis
    fan-out bus and cluster-wide presence, on a redis-server the benchmark starts.
    ``processes`` > 1: that many server processes on one machine and one data folder (the
    platform's with Redis between them), because one process holds at most as many sockets as
    its open-file limit allows; the swarms are spread over them.
    """

    def __init__(
        self,
        name: str,
        work: Path,
        redis_url: str | None = None,
        mentioned: Seed | None = None,
        processes: int = 1,
    ) -> None:
        self.name = name
        self.work = work
        several = processes > 1 and name != "floor"
        self.redis_url = redis_url if name == "band-redis" or several else None
        self.mentioned = mentioned
        self.processes = processes
        self.ports: list[int] = []
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> tuple[list[int], list[str]]:
        """Start the server processes: their pids and socket URLs."""
        self.ports = [free_port() for _ in range(self.processes)]
        if self.name == "floor":
            self.procs = []
            for i, port in enumerate(self.ports):
                (self.work / f"floor{i}").mkdir(exist_ok=True)
                self.procs.append(serve_floor(self.work / f"floor{i}", port))
            path = "/socket"
        else:
            self.procs = [
                serve_platform(self.work, p, redis_url=self.redis_url) for p in self.ports
            ]
            path = "/api/v1/socket/websocket"
        return [p.pid for p in self.procs], [f"ws://127.0.0.1:{p}{path}" for p in self.ports]

    def stop(self) -> None:
        """Stop cleanly (SIGTERM), so a node leaves the cluster's presence at once: a killed
        one would expire later and be taken, by the next phase's nodes, for a crash."""
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def mentions(self, rate: int, seconds: float) -> Any:
        """Mentions of an agent outside the swarm at ``rate`` (the floor: its POST and push),
        posted to the first process, where that agent's socket is."""
        port = self.ports[0]
        if self.name == "floor" or self.mentioned is None:
            spec = floor_mention_spec(port)
        else:
            spec = mention_spec(self.mentioned, port, port)
        target = LoadTarget(self.name, self.procs, spec)
        return drive(target, rate, seconds, f"m{time.monotonic_ns()}-")


def start_redis(work: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A redis-server without persistence on a free port (for the ``band-redis`` target)."""
    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("the band-redis target needs redis-server")
    port = free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
    proc = subprocess.Popen(
        [*command, "--appendonly", "no", "--dir", str(work)], stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return proc, f"redis://127.0.0.1:{port}/0"
        time.sleep(0.05)
    proc.kill()
    sys.exit("redis-server did not start")


def probe(
    target: Target, agents: list[tuple[str, str]], args: argparse.Namespace
) -> dict[str, Any]:
    """As fast as ``in_flight`` handshakes allow: the highest connect rate sustained."""
    pids, urls = target.start()
    try:
        # The warm-up (first sockets, caches), then the probe itself.
        for agents_now in (agents[:WARM_UP], agents[WARM_UP : WARM_UP + args.probe]):
            cpu0 = cpu_s(pids)
            result = swarm(
                urls,
                agents_now,
                in_flight=args.in_flight,
                rate=0,
                hold=0,
                work=target.work,
                on_connected=lambda _: {"cpu": cpu_s(pids)},
                per_swarm=args.per_swarm,
                client=args.client,
            )
        cpu = result.pop("cpu") - cpu0
        result["server_cpu_ms_per_connect"] = round(1000 * cpu / max(1, result["connected"]), 3)
        return result
    finally:
        target.stop()


def paced(
    target: Target, agents: list[tuple[str, str]], args: argparse.Namespace
) -> dict[str, Any]:
    """N sockets at ``rate`` connects/s, held idle: latency, memory, heartbeats, idle CPU."""
    pid, url = target.start()
    try:
        swarm(
            url,
            agents[:WARM_UP],
            in_flight=WARM_UP,
            rate=0,
            hold=0,
            work=target.work,
            on_connected=lambda _: {},
            client=args.client,
        )
        alone = None
        if args.mention_rate:  # warmed up first, then the same load as below, none connected
            target.mentions(50, 1.0)
            alone = target.mentions(args.mention_rate, args.mention_seconds)
        base = settled_rss(pid)
        cpu0 = cpu_s(pid)

        def measure(_first: dict[str, Any]) -> dict[str, Any]:
            cpu_connected = cpu_s(pid)
            held = settled_rss(pid)
            out = {"rss_held_kib": held, "cpu_connect": cpu_connected - cpu0}
            if alone is not None:  # the swarm connected and beating meanwhile
                beside = target.mentions(args.mention_rate, args.mention_seconds)
                out.update(mentions_alone=alone, mentions_beside=beside)
            out.update(cpu_at_connected=cpu_s(pid), t_connected=time.monotonic())
            return out

        result = swarm(
            url,
            agents[WARM_UP : WARM_UP + args.sockets],
            in_flight=args.in_flight,
            rate=args.rate,
            hold=args.hold,
            work=target.work,
            on_connected=measure,
            per_swarm=args.per_swarm,
            client=args.client,
        )
        idle_cpu = (cpu_s(pid) - result.pop("cpu_at_connected")) / max(
            1e-9, time.monotonic() - result.pop("t_connected")
        )
    finally:
        target.stop()
    connected = max(1, result["connected"])
    if "mentions_alone" in result:
        alone, beside = result["mentions_alone"], result["mentions_beside"]
        result.update(
            mention_p99_alone_ms=alone["push_p99_ms"],
            mention_p99_beside_ms=beside["push_p99_ms"],
            mention_p99_ratio=alone["push_p99_ms"]
            and beside["push_p99_ms"]
            and round(beside["push_p99_ms"] / alone["push_p99_ms"], 2),
            mentions_received=f"{beside['received']}/{beside['sent']}",
        )
    result.update(
        baseline_rss_kib=base,
        kib_per_socket=round((result["rss_held_kib"] - base) / connected, 1),
        server_cpu_ms_per_connect=round(1000 * result.pop("cpu_connect") / connected, 3),
        idle_cpu_pct_of_core=round(100 * idle_cpu, 1),
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sockets", type=int, default=10_000, help="idle agent sockets held")
    parser.add_argument("--rate", type=float, default=200.0, help="paced connects per second")
    parser.add_argument("--probe", type=int, default=2000, help="sockets of the max-rate probe")
    parser.add_argument("--in-flight", type=int, default=100, help="handshakes at a time")
    parser.add_argument("--hold", type=float, default=60.0, help="idle seconds once connected")
    parser.add_argument(
        "--mention-rate",
        type=int,
        default=200,
        help="mentions/s of an agent outside the swarm, with none and with all connected (0: off)",
    )
    parser.add_argument("--mention-seconds", type=float, default=10.0, help="seconds of each")
    parser.add_argument("--per-swarm", type=int, default=12_500, help="sockets per client process")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes per target on this machine (the platform's with Redis)",
    )
    parser.add_argument(
        "--targets", default="floor,band", help="comma-separated: floor,band,band-redis"
    )
    parser.add_argument(
        "--client",
        choices=("picows", "websockets"),
        default="picows",
        help="the swarm's WebSocket client (bench/_socket_swarm.py)",
    )
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by the servers
    per_process = -(-args.sockets // args.processes)
    if hard < per_process + 1000:
        sys.exit(
            f"the hard open-file limit ({hard}) is too low for {per_process} sockets a process:"
            " raise it (LimitNOFILE, ulimit -Hn) or spread them (--processes)"
        )
    work = Path(tempfile.mkdtemp(prefix="band-sockets-"))
    n = WARM_UP + max(args.sockets, args.probe)
    print(f"seeding {n} agents ...", flush=True)
    rows: list[dict[str, Any]] = []
    redis: subprocess.Popen[bytes] | None = None
    try:
        agents = asyncio.run(seed_agents(work, n))
        mentioned = asyncio.run(seed(work)) if args.mention_rate else None
        need_redis = "band-redis" in args.targets or args.processes > 1
        redis, redis_url = start_redis(work) if need_redis else (None, None)
        for name in args.targets.split(","):
            target = Target(name, work, redis_url, mentioned, args.processes)
            for phase, run in (("probe", probe), ("paced", paced)):
                load = os.getloadavg()[0]
                print(f"{name} {phase} (load average {load:.2f}) ...", flush=True)
                row = run(target, agents, args)
                row.update(target=name, phase=phase, load_average_before=round(load, 2))
                rows.append(row)
    finally:
        if redis is not None:
            redis.kill()
            redis.wait()
        shutil.rmtree(work, ignore_errors=True)  # the seeded database, specs, server data
    print()
    cols = [
        ("target", "target", 10),
        ("phase", "phase", 6),
        ("sockets", "sockets", 7),
        ("rate", "offered_rate", 6),
        ("conn/s", "connects_per_s", 7),
        ("join p50", "join_p50_ms", 8),
        ("join p99", "join_p99_ms", 8),
        ("open p99", "open_p99_ms", 8),
        ("srv ms/conn", "server_cpu_ms_per_connect", 11),
        ("cli ms/conn", "client_cpu_ms_per_connect", 11),
        ("KiB/sock", "kib_per_socket", 8),
        ("beats", "heartbeats_answered", 6),
        ("after hold", "heartbeats_answered_after_hold", 10),
        ("idle CPU%", "idle_cpu_pct_of_core", 9),
        ("m p99 0", "mention_p99_alone_ms", 7),
        ("m p99 N", "mention_p99_beside_ms", 7),
        ("m ratio", "mention_p99_ratio", 7),
        ("load", "load_average_before", 5),
    ]
    print(" ".join(f"{title:>{width}}" for title, _, width in cols))
    for row in rows:
        print(" ".join(f"{row.get(key, '-')!s:>{width}}" for _, key, width in cols))
    for row in rows:
        if row["failures"]:
            print(
                f"{row['target']} {row['phase']}: {row['failures']} failures, e.g. "
                f"{row['first_failures'][:2]}"
            )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "idle_sockets.json"
    out.write_text(json.dumps({"args": vars(args), "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
