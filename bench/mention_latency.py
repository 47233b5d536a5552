"""Mention delivery: a person's POST to the agent's socket receiving ``message_created``.

Open-loop load at several rates, side by side in one run with a floor: a minimal app on the
same server stack that does one durable SQLite insert per POST and pushes one WebSocket
frame. For each rate and repetition the floor and the platform run in turn (paired), each
driven by the same lean load generator in its own process (``bench/_loadgen.py``). Measured:
push latency from the scheduled send time (p50/p99), the POST's answer latency, pushes
received, and the **server's CPU time per message** (psutil; far less sensitive to other load
on the machine than wall time), the share of it on the **event loop's thread** (the queue every
request passes: its busy share is what the p99 follows), and the platform's units per group
commit (its ``/metrics``).

    .venv/bin/python -m bench.mention_latency [--rates 200,1000] [--seconds 5] [--repeat 3]
        [--database sqlite|postgres] [--nodes 1|2|3] [--before DIR]

``--database postgres`` runs the platform on a throwaway PostgreSQL cluster (fsync on);
``--nodes 2`` (PostgreSQL + Redis) posts to node A while the agent's socket is on node B, and
compares CPU per delivered message (both nodes) with one node in the same run; ``--nodes 3``
adds a node between them that holds no socket of the room (what a cluster's other nodes pay).
``--before DIR`` (SQLite, one node) also serves the build in the source tree ``DIR``
(``DIR/src`` first on its ``PYTHONPATH``, seeded by its own code) as the target "before", run
in turn with the floor and this build in every repetition: two builds compared within the same
minutes, each beside the same floor.

Prints a table and writes bench/results/mention_latency[-postgres][-Nnodes].json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]

from bench._platform import (
    floor_mention_spec,
    free_port,
    fsync_probe,
    mention_spec,
    seed,
    seed_by,
    serve_floor,
    serve_platform,
    write_results,
)

RESULTS = Path(__file__).parent / "results"
CONNECTIONS = 64


@dataclass
class Target:
    """A server (or two) under test and the load generator's spec for it."""

    name: str
    procs: list[subprocess.Popen[bytes]]
    spec: dict[str, Any]


def cpu_seconds(procs: list[subprocess.Popen[bytes]]) -> list[float]:
    """Each process's CPU time so far (user + system), in seconds."""
    times = [psutil.Process(proc.pid).cpu_times() for proc in procs]
    return [t.user + t.system for t in times]


def loop_seconds(procs: list[subprocess.Popen[bytes]]) -> float:
    """CPU time so far of the processes' main threads, where each runs its event loop (the
    platform's and the floor's): the one queue every request passes, so its busy share, not
    the process's, is what the latency tail follows (their SQLite threads run beside it)."""
    total = 0.0
    for proc in procs:
        for thread in psutil.Process(proc.pid).threads():
            if thread.id == proc.pid:
                total += thread.user_time + thread.system_time
    return total


def commit_batches(target: Target) -> tuple[float, float] | None:
    """Units and batches committed so far by the node that takes the POSTs (its
    ``/metrics``); None for the floor or a node without SQLite's group commit."""
    if target.name == "floor":
        return None
    url = f"http://{target.spec['host']}:{target.spec['port']}/metrics"
    figures = {}
    for line in httpx.get(url, timeout=10).text.splitlines():
        name, _, value = line.partition(" ")
        if name in ("band_db_commit_batch_units_sum", "band_db_commit_batch_units_count"):
            figures[name] = float(value)
    if len(figures) < 2:
        return None
    return figures["band_db_commit_batch_units_sum"], figures["band_db_commit_batch_units_count"]


def drive(target: Target, rate: int, seconds: float, tag: str) -> dict[str, Any]:
    spec = dict(target.spec, rate=rate, seconds=seconds, token_prefix=f"{tag}-")
    batches = commit_batches(target)
    before = cpu_seconds(target.procs)
    loop_before = loop_seconds(target.procs)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "bench._loadgen", json.dumps(spec)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    used = [after - was for after, was in zip(cpu_seconds(target.procs), before, strict=True)]
    loop_used = loop_seconds(target.procs) - loop_before
    spent = resource.getrusage(resource.RUSAGE_CHILDREN)
    client = spent.ru_utime + spent.ru_stime - children.ru_utime - children.ru_stime
    if done.returncode != 0:
        raise RuntimeError(f"load generator failed:\n{done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    received = max(1, row["received"])
    row["server_cpu_ms_per_msg"] = round(sum(used) * 1000 / received, 3)
    row["loop_cpu_ms_per_msg"] = round(loop_used * 1000 / received, 3)
    # The load generator's own CPU (its processes, reaped): it must not be what saturates.
    row["loadgen_cpu_ms_per_msg"] = round(client * 1000 / received, 3)
    after = commit_batches(target)
    if batches is not None and after is not None and after[1] > batches[1]:
        # Units per group commit: the CPU per message falls as batches grow (each commit
        # writes its pages once), so runs are compared at their batch sizes.
        row["units_per_batch"] = round((after[0] - batches[0]) / (after[1] - batches[1]), 2)
    if len(used) > 1:  # the first node takes the POSTs, the last holds the agent's socket
        row["node_cpu_ms_per_msg"] = [round(u * 1000 / received, 3) for u in used]
    return row


def floor_target(stack: ExitStack) -> Target:
    data = Path(tempfile.mkdtemp(prefix="band-floor-"))
    port = free_port()
    proc = serve_floor(data, port)
    stack.callback(_stop, proc)
    spec = floor_mention_spec(port, CONNECTIONS)
    return Target("floor", [proc], spec)


def platform_target(
    stack: ExitStack,
    name: str,
    database_url: str | None,
    redis_url: str | None,
    nodes: int,
    tree: Path | None = None,
) -> Target:
    data = Path(tempfile.mkdtemp(prefix="band-bench-"))
    s = seed_by(tree, data) if tree is not None else asyncio.run(seed(data, database_url))
    ports = [free_port() for _ in range(nodes)]
    procs = []
    for i, port in enumerate(ports):
        node_data = data / f"node{i}"
        node_data.mkdir()
        if database_url is None:
            node_data = data  # one SQLite file: the seeded one
        pythonpath = None if tree is None else tree / "src"
        proc = serve_platform(node_data, port, database_url, redis_url, pythonpath)
        stack.callback(_stop, proc)
        procs.append(proc)
    ws_port = ports[-1]  # with several nodes, the agent listens on the last one
    spec = mention_spec(s, ports[0], ws_port, CONNECTIONS)
    return Target(name, procs, spec)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()


def median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [r[key] for r in rows if r.get(key) is not None]
    return round(statistics.median(values), 3) if values else None


def saturated(s: dict[str, Any], rate: int) -> bool:
    """The target fell behind the offered rate (a median run below 97% of it): queues grew,
    and its CPU per message is no longer the same measurement as an unsaturated one's."""
    return s["achieved_rate"] is not None and s["achieved_rate"] < 0.97 * rate


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = (
        "push_p50_ms",
        "push_p99_ms",
        "ack_p50_ms",
        "server_cpu_ms_per_msg",
        "loop_cpu_ms_per_msg",
        "loadgen_cpu_ms_per_msg",
        "achieved_rate",
        "units_per_batch",
    )
    out: dict[str, Any] = {k: median(rows, k) for k in keys}
    out["received"] = sum(r["received"] for r in rows)
    out["sent"] = sum(r["sent"] for r in rows)
    out["errors"] = sum(r["errors"] for r in rows)
    by_node = [r["node_cpu_ms_per_msg"] for r in rows if "node_cpu_ms_per_msg" in r]
    if by_node:
        per_node = zip(*by_node, strict=True)
        out["node_cpu_ms_per_msg"] = [round(statistics.median(n), 2) for n in per_node]
    return out


def start_services(stack: ExitStack, args: argparse.Namespace) -> tuple[Any, str | None]:
    """A throwaway durable PostgreSQL cluster (and Redis for two nodes), when asked for."""
    if args.database == "sqlite" and args.nodes == 1:
        return None, None
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.scale.real_services import PostgresServer, RedisServer

    pg = PostgresServer(durable=True)
    pg.start()
    stack.callback(pg.stop)
    redis_url = None
    if args.nodes > 1:
        redis = RedisServer(Path(tempfile.mkdtemp(prefix="band-redis-")))
        redis.start()
        stack.callback(redis.stop)
        redis_url = redis.url
    return pg, redis_url


def database_for(pg: Any) -> str | None:
    """A fresh database of the cluster for one target (None: SQLite in its data folder)."""
    return None if pg is None else str(asyncio.run(pg.create_database()))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rates", default="200,1000", help="comma-separated msg/s")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of load per run")
    parser.add_argument("--repeat", type=int, default=3, help="paired runs per rate")
    parser.add_argument(
        "--database",
        choices=("sqlite", "postgres"),
        default="sqlite",
        help="the platform's database (postgres: a throwaway server; --nodes 2 implies it)",
    )
    parser.add_argument("--nodes", type=int, choices=(1, 2, 3), default=1, help="2+ need Redis")
    parser.add_argument("--before", help="a source tree to serve as the 'before' build")
    args = parser.parse_args()
    if args.nodes > 1:
        args.database = "postgres"
    if args.before and (args.database != "sqlite" or args.nodes != 1):
        parser.error("--before compares builds on SQLite, one node")
    if args.before and not (Path(args.before) / "src" / "band_server").is_dir():
        parser.error(f"--before {args.before}: no src/band_server in it")
    rates = [int(r) for r in args.rates.split(",")]
    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f} on {os.cpu_count()} cores", flush=True)
    fsync = fsync_probe(Path(tempfile.gettempdir()))
    print(f"one durable SQLite commit on this disk now: {fsync}", flush=True)
    results: dict[str, dict[int, list[dict[str, Any]]]] = {}
    with ExitStack() as stack:
        pg, redis_url = start_services(stack, args)
        targets = [floor_target(stack)]
        if args.nodes > 1:
            targets.append(platform_target(stack, "band 1 node", database_for(pg), None, 1))
            several = f"band {args.nodes} nodes"
            targets.append(platform_target(stack, several, database_for(pg), redis_url, args.nodes))
        else:
            if args.before:
                tree = Path(args.before).resolve()
                targets.append(platform_target(stack, "before", None, None, 1, tree))
            targets.append(platform_target(stack, "band", database_for(pg), None, 1))
        for t in targets:  # warm-up: imports, caches, the first connections
            drive(t, 50, 1.0, f"warm-{t.name}")
        for rep in range(args.repeat):
            # The builds after the floor in turn, reversed every other repetition (ABBA).
            builds = targets[1:] if rep % 2 == 0 else targets[:0:-1]
            for rate in rates:
                for t in [targets[0], *builds]:
                    print(f"  run {rep + 1}/{args.repeat}: {t.name} @ {rate} msg/s", flush=True)
                    row = drive(t, rate, args.seconds, f"r{rep}-{rate}")
                    results.setdefault(t.name, {}).setdefault(rate, []).append(row)
    report(args, rates, results, load, fsync)


def report(
    args: argparse.Namespace,
    rates: list[int],
    results: dict[str, dict[int, list[dict[str, Any]]]],
    load: float,
    fsync: dict[str, float],
) -> None:
    summary = {
        name: {r: summarise(rows) for r, rows in by_rate.items()}
        for name, by_rate in results.items()
    }
    print(
        f"\nmedians of {args.repeat} paired runs, {args.seconds:g} s each; database={args.database}"
    )
    header = f"{'target':>13} {'rate':>5} | {'p50 ms':>8} {'p99 ms':>8} {'ack p50':>8} | "
    header += f"{'cpu ms/msg':>10} {'loop':>6} {'loadgen':>7} {'batch':>5} | "
    header += f"{'received':>11} {'errors':>6} "
    header += f"{'achieved':>8}"
    print(header)
    print("-" * len(header))
    for rate in rates:
        for name, by_rate in summary.items():
            s = by_rate[rate]
            print(
                f"{name:>13} {rate:>5} | {s['push_p50_ms']!s:>8} {s['push_p99_ms']!s:>8} "
                f"{s['ack_p50_ms']!s:>8} | {s['server_cpu_ms_per_msg']!s:>10} "
                f"{s['loop_cpu_ms_per_msg']!s:>6} {s['loadgen_cpu_ms_per_msg']!s:>7} "
                f"{s['units_per_batch']!s:>5} | "
                f"{s['received']:>5}/{s['sent']:<5} {s['errors']:>6} {s['achieved_rate']!s:>8}"
                + ("  saturated" if saturated(s, rate) else "")
            )
    verdicts: dict[str, Any] = {}
    floor = summary["floor"]
    for name, by_rate in summary.items():
        if name == "floor":
            continue
        ratios = {}
        for rate in rates:
            f, p = floor[rate], by_rate[rate]
            if f["push_p50_ms"] and p["push_p50_ms"] and f["push_p99_ms"] and p["push_p99_ms"]:
                ratios[rate] = {
                    "p50_x_floor": round(p["push_p50_ms"] / f["push_p50_ms"], 2),
                    "p99_x_floor": round(p["push_p99_ms"] / f["push_p99_ms"], 2),
                }
        sustained = [
            r
            for r in rates
            if by_rate[r]["push_p99_ms"] is not None
            and by_rate[r]["push_p99_ms"] < 50
            and by_rate[r]["received"] == by_rate[r]["sent"]
        ]
        verdicts[name] = {"vs_floor": ratios, "sustained_p99_under_50ms": max(sustained or [0])}
        print(f"\n{name}: ratios to the floor {ratios}")
        best = max(sustained or [0])
        print(f"{name}: highest rate with p99 < 50 ms and every push received: {best}")
    several = f"band {args.nodes} nodes"
    if several in summary and "band 1 node" in summary:
        for rate in rates:
            one = summary["band 1 node"][rate]["server_cpu_ms_per_msg"]
            many = summary[several][rate]["server_cpu_ms_per_msg"]
            if one and many:
                full = [n for n in ("band 1 node", several) if saturated(summary[n][rate], rate)]
                note = f" (saturated: {', '.join(full)})" if full else ""
                print(
                    f"@{rate}: CPU per delivered message, {args.nodes} nodes / 1 node = "
                    f"{many / one:.2f}x{note}"
                )
                nodes = summary[several][rate].get("node_cpu_ms_per_msg")
                print(f"@{rate}: by node (POSTs first, the socket's last), ms/msg: {nodes}")
                key = "two_nodes_cpu_ratio" if args.nodes == 2 else f"{args.nodes}_nodes_cpu_ratio"
                verdicts.setdefault(key, {})[rate] = round(many / one, 2)
    suffix = ("-postgres" if args.database == "postgres" else "") + (
        f"-{args.nodes}nodes" if args.nodes > 1 else ""
    )
    write_results(
        RESULTS / f"mention_latency{suffix}.json",
        load,
        fsync,
        args,
        summary=summary,
        verdicts=verdicts,
        runs=results,
    )


if __name__ == "__main__":
    main()
