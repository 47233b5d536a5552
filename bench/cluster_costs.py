"""What one mention costs the shared services of a cluster, and what those services hold here.

Two platform nodes on PostgreSQL (fsync on) and Redis, as ``bench.mention_latency --nodes 2``
runs them: a person's POSTs mentioning an agent go to node A, the agent's socket is on node B.
Counted around a paced run, per delivered message: PostgreSQL transactions committed, rows
inserted / updated / deleted (``pg_stat_database``), WAL bytes (``pg_current_wal_lsn``), and
Redis commands by name (``INFO commandstats``: PUBLISH, the presence writes). Beside it, in the
same run, the floor: one durable insert and one commit a message, counted the same way on the
same PostgreSQL (one INSERT in its own transaction). Then what this machine's services sustain:
durable single-row commits a second (``pgbench``, 8 clients) and PUBLISH a second
(``redis-benchmark``, pipelined). These are the simulator's inputs (``bench/scaling_sim.py``).

    .venv/bin/python -m bench.cluster_costs [--rate 200] [--seconds 10] [--no-capacity]

Prints a table and writes bench/results/cluster_costs.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.mention_latency import database_for, drive, platform_target

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent


async def pg_counters(url: str) -> dict[str, float]:
    """This database's commits and row writes, and the cluster's WAL position (bytes)."""
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
    try:
        # The statistics collector publishes at most every 500 ms; ask for a fresh view.
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        row = await conn.fetchrow(
            "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted,"
            " pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal"
            " FROM pg_stat_database WHERE datname = current_database()"
        )
    finally:
        await conn.close()
    return {k: float(v) for k, v in dict(row).items()}


def redis_commands(url: str) -> dict[str, int]:
    import redis

    client = redis.Redis.from_url(url)
    try:
        stats = client.info("commandstats")
    finally:
        client.close()
    return {k.removeprefix("cmdstat_"): int(v["calls"]) for k, v in stats.items()}


def settle() -> None:
    time.sleep(1.2)  # PostgreSQL's statistics reach pg_stat_database within ~0.5 s


def per_message(before: dict[str, float], after: dict[str, float], n: int) -> dict[str, float]:
    return {k: round((after[k] - before[k]) / max(1, n), 2) for k in after}


def floor_writes(url: str, n: int) -> dict[str, Any]:
    """The floor's cost, counted the same way: one INSERT in its own transaction each."""

    async def go() -> dict[str, Any]:
        import asyncpg

        conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
        await conn.execute("CREATE TABLE messages (id text PRIMARY KEY, body text)")
        await conn.close()
        settle()
        before = await pg_counters(url)
        conn = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
        for i in range(n):
            await conn.execute("INSERT INTO messages VALUES ($1, $2)", f"m{i}", '{"content":"x"}')
        await conn.close()
        settle()
        after = await pg_counters(url)
        return per_message(before, after, n)

    return asyncio.run(go())


def pg_capacity(pg: Any, seconds: int) -> float | None:
    """Durable single-row commits a second on this machine (pgbench, 8 clients)."""
    from tests.scale.real_services import _as_cluster_owner, pg_binary

    pgbench = pg_binary("pgbench")
    if pgbench is None:
        return None
    db = asyncio.run(pg.create_database()).rsplit("/", 1)[-1]
    base = [*_as_cluster_owner(), pgbench, "-h", "127.0.0.1", "-p", str(pg.port), "-U", "band"]
    subprocess.run([*base, "-i", "-s", "1", "-q", db], check=True, capture_output=True)
    out = subprocess.run(
        [*base, "-N", "-c", "8", "-j", "2", "-T", str(seconds), db],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = re.search(r"tps = ([\d.]+)", out)
    return round(float(found.group(1)), 1) if found else None


def redis_capacity(port: int) -> float | None:
    """PUBLISH a second to one channel with no subscriber (redis-benchmark, 16 pipelined)."""
    command = ["redis-benchmark", "-p", str(port), "-n", "200000", "-P", "16", "-q"]
    try:
        out = subprocess.run(
            [*command, "PUBLISH", "band:bench", "x" * 400], capture_output=True, text=True
        ).stdout
    except FileNotFoundError:
        return None
    found = re.findall(r"([\d.]+) requests per second", out)
    return float(found[-1]) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rate", type=int, default=200, help="mentions a second")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of load")
    parser.add_argument("--capacity-seconds", type=int, default=10, help="pgbench's run")
    parser.add_argument(
        "--no-capacity", action="store_true", help="skip pgbench and redis-benchmark"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.scale.real_services import PostgresServer, RedisServer

    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f} on {os.cpu_count()} cores", flush=True)
    out: dict[str, Any] = {"args": vars(args), "load_average_before": load}
    with ExitStack() as stack:
        pg = PostgresServer(durable=True)
        pg.start()
        stack.callback(pg.stop)
        redis = RedisServer(Path(tempfile.mkdtemp(prefix="band-redis-")))
        redis.start()
        stack.callback(redis.stop)
        url = database_for(pg)
        assert url is not None
        target = platform_target(stack, "band 2 nodes", url, redis.url, 2)
        print("warm-up ...", flush=True)
        drive(target, 50, 1.0, "warm")
        settle()
        pg0, redis0 = asyncio.run(pg_counters(url)), redis_commands(redis.url)
        print(f"band: {args.rate} mentions/s for {args.seconds:g} s ...", flush=True)
        row = drive(target, args.rate, args.seconds, "run")
        settle()
        pg1, redis1 = asyncio.run(pg_counters(url)), redis_commands(redis.url)
        n = row["received"]
        band = per_message(pg0, pg1, n)
        commands = {
            k: round((redis1.get(k, 0) - redis0.get(k, 0)) / max(1, n), 2)
            for k in redis1
            if redis1.get(k, 0) > redis0.get(k, 0)
        }
        elapsed = args.seconds
        background = {  # what the two nodes send Redis whatever the load (presence, pings)
            k: v for k, v in commands.items() if k not in ("publish", "client|reply")
        }
        out["band"] = {"delivered": n, "sent": row["sent"], "pg_per_msg": band}
        out["band"]["redis_per_msg"] = commands
        out["band"]["redis_other_per_s"] = {
            k: round(v * n / elapsed, 1) for k, v in background.items()
        }
        print("floor: the same count for one INSERT a transaction ...", flush=True)
        out["floor"] = {"pg_per_msg": floor_writes(str(database_for(pg)), 2000)}
        if not args.no_capacity:
            print("capacity: pgbench, redis-benchmark ...", flush=True)
            out["capacity"] = {
                "pg_durable_commits_per_s": pg_capacity(pg, args.capacity_seconds),
                "redis_publish_per_s": redis_capacity(redis.port),
            }
    print()
    print(f"{'per delivered message':>24} | {'commits':>7} {'inserted':>8} {'updated':>7} ", end="")
    print(f"{'deleted':>7} {'WAL bytes':>9} | {'PUBLISH':>7}")
    for name in ("floor", "band"):
        pg_row = out[name]["pg_per_msg"]
        publish = out[name].get("redis_per_msg", {}).get("publish", "-")
        print(
            f"{name:>24} | {pg_row['xact_commit']:>7} {pg_row['tup_inserted']:>8} "
            f"{pg_row['tup_updated']:>7} {pg_row['tup_deleted']:>7} {pg_row['wal']:>9} | "
            f"{publish!s:>7}"
        )
    print(f"band, Redis commands per message: {out['band']['redis_per_msg']}")
    if "capacity" in out:
        print(f"this machine: {out['capacity']}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "cluster_costs.json"
    path.write_text(json.dumps(out, indent=2))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
