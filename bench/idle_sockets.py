"""Idle agent sockets on one node: server memory per socket, heartbeats, join latency.

N agents (each with its own key) connect to one platform node, join ``agent_control`` and
``agent_rooms`` as the SDK does, and stay idle; the client swarm runs in its own process
(``bench/_socket_swarm.py``) with ``in_flight`` handshakes at a time. Measured: the server's
RSS per socket (RSS with N sockets held and settled, minus the RSS after a warm-up, over N),
join latency while the others connect (p50/p99), heartbeats answered once all are connected
and again after an idle hold (the server pings every socket meanwhile), and the server's CPU
while idle. Both processes raise their open-file limit to the hard limit.

    .venv/bin/python -m bench.idle_sockets [--sockets 10000] [--in-flight 100] [--hold 30]

Prints a table and writes bench/results/idle_sockets.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]

from band_server.services import accounts
from band_server.store.db import Database
from band_server.store.migrate import upgrade
from bench._platform import free_port, serve_platform

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent


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


def rss_kib(pid: int) -> int:
    return int(psutil.Process(pid).memory_info().rss // 1024)


def settled_rss(pid: int, window: float = 4.0, quiet_kib: int = 256, limit: float = 60) -> int:
    """RSS once it moves by less than ``quiet_kib`` over ``window`` seconds."""
    deadline = time.monotonic() + limit
    last = rss_kib(pid)
    while time.monotonic() < deadline:
        time.sleep(window)
        now = rss_kib(pid)
        if abs(now - last) < quiet_kib:
            return now
        last = now
    return last


def swarm(
    port: int,
    agents: list[tuple[str, str]],
    in_flight: int,
    hold: float,
    work: Path,
    on_connected: Any,
) -> dict[str, Any]:
    spec = {
        "ws_url": f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
        "agents": agents,
        "in_flight": in_flight,
        "hold_seconds": hold,
    }
    spec_file = work / f"swarm-{len(agents)}.json"
    spec_file.write_text(json.dumps(spec))
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench._socket_swarm", str(spec_file)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    first = json.loads(proc.stdout.readline())
    extra = on_connected(first)
    proc.stdin.write("\n")
    proc.stdin.flush()
    result: dict[str, Any] = json.loads(proc.stdout.readline())
    proc.wait(60)
    result.update(extra)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sockets", type=int, default=10_000, help="idle agent sockets")
    parser.add_argument("--in-flight", type=int, default=100, help="handshakes at a time")
    parser.add_argument("--hold", type=float, default=30.0, help="idle seconds once connected")
    args = parser.parse_args()
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # inherited by the server
    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f} on {os.cpu_count()} cores; file limit {hard}")
    work = Path(tempfile.mkdtemp(prefix="band-sockets-"))
    print(f"seeding {args.sockets + 3} agents ...", flush=True)
    agents = asyncio.run(seed_agents(work, args.sockets + 3))
    port = free_port()
    server = serve_platform(work, port)
    try:
        pid = server.pid
        swarm(port, agents[:3], 3, 0, work, lambda _: {})  # warm-up: first sockets, caches
        base = settled_rss(pid)
        print(f"baseline RSS {base / 1024:.1f} MiB; connecting {args.sockets} agents ...")

        def measure(first: dict[str, Any]) -> dict[str, Any]:
            held = settled_rss(pid)
            t = psutil.Process(pid).cpu_times()
            return {"rss_held_kib": held, "cpu_at_connected": t.user + t.system}

        t0 = time.monotonic()
        result = swarm(port, agents[3:], args.in_flight, args.hold, work, measure)
        t = psutil.Process(pid).cpu_times()
        idle_cpu = (t.user + t.system - result.pop("cpu_at_connected")) / max(
            1e-9, time.monotonic() - t0 - result["connect_seconds"]
        )
    finally:
        server.kill()
        server.wait()
    held = result["rss_held_kib"]
    per_socket = (held - base) / max(1, result["connected"])
    result.update(
        baseline_rss_kib=base,
        kib_per_socket=round(per_socket, 1),
        idle_cpu_pct_of_core=round(100 * idle_cpu, 1),
        load_average_before=load,
    )
    print()
    print(
        f"{'sockets':>8} {'connected':>9} {'KiB/socket':>10} {'RSS MiB':>8} {'join p50':>8} "
        f"{'join p99':>8} {'heartbeats':>11} {'after hold':>11} {'idle CPU %':>10}"
    )
    print(
        f"{result['sockets']:>8} {result['connected']:>9} {result['kib_per_socket']:>10} "
        f"{held / 1024:>8.1f} {result['join_p50_ms']!s:>8} {result['join_p99_ms']!s:>8} "
        f"{result['heartbeats_answered']:>11} {result['heartbeats_answered_after_hold']:>11} "
        f"{result['idle_cpu_pct_of_core']:>10}"
    )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "idle_sockets.json"
    out.write_text(json.dumps({"args": vars(args), "result": result}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
