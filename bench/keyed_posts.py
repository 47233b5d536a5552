"""Server CPU of a keyed POST beside the same POST without a key (the SDK's turn keys).

Our SDK sends an ``Idempotency-Key`` on the posts of a turn (``band.platform.turn_keys``:
answered once across a crash); band-sdk 6.0.1 sends none. This bench serves the platform in a
subprocess (``band serve``'s stack, SQLite) and makes an agent's event post and message post
one after another over HTTP (keep-alive, the next sent when the answer arrived), each without
a key, with a fresh key per post, and replayed (the same key and body again), interleaved in
blocks so a drift in the machine's load hits every variant alike. Measured: CPU of the server
process (every thread's scheduler run time) per call; wall time per call beside it.

``--src DIR`` (repeatable) serves the platform from another source tree's ``src`` (e.g. a
``git archive`` export of main) in the same run, for before/after pairs.

    .venv/bin/python -m bench.keyed_posts [--calls 300] [--block 50] [--src DIR ...]

Prints a table and writes bench/results/keyed_posts.json.
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
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]

from ._platform import Seed, free_port, seed_by, serve_platform

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("event", "event keyed", "event replayed", "message", "message keyed")


@dataclass
class Target:
    label: str
    src: Path


def request(variant: str, s: Seed, i: int, replay_key: str) -> tuple[str, dict[str, Any], str]:
    """Path, body and key (or "") of the i-th call of ``variant``."""
    room = f"/api/v1/agent/chats/{s.room_id}"
    if variant.startswith("event"):
        if variant == "event replayed":
            same = {"event": {"content": "thinking", "message_type": "thought"}}
            return f"{room}/events", same, replay_key
        body = {"event": {"content": f"thinking {i}", "message_type": "thought"}}
        return f"{room}/events", body, (f"bench-{uuid.uuid4()}" if "keyed" in variant else "")
    # A reply mentions the person, as the seed adapter's band_send_message does.
    body = {"message": {"content": f"@bench answer {i}", "mentions": [{"id": s.user_id}]}}
    return f"{room}/messages", body, (f"bench-{uuid.uuid4()}" if "keyed" in variant else "")


async def measure(target: Target, args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"band-keyed-{target.label}-"))
    # Seeded by the target's own code: its schema may be older than this tree's.
    s = await asyncio.to_thread(seed_by, target.src.parent, workdir / "data")
    port = free_port()
    proc = serve_platform(workdir / "data", port, pythonpath=target.src)
    server = psutil.Process(proc.pid)
    cpu: dict[str, list[float]] = defaultdict(list)
    wall: dict[str, list[float]] = defaultdict(list)
    replay_key = f"bench-{uuid.uuid4()}"
    try:
        async with httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", headers={"X-API-Key": s.agent_key}, timeout=30
        ) as client:
            for variant in VARIANTS:  # warm every path (and make the replayed key's first post)
                for i in range(20):
                    await call(client, *request(variant, s, i, replay_key))
            done = 0
            while done < args.calls:
                n = min(args.block, args.calls - done)
                for variant in VARIANTS:
                    calls = [request(variant, s, done + i, replay_key) for i in range(n)]
                    t0, c0 = time.perf_counter(), cpu_of(server)
                    for path, body, key in calls:
                        await call(client, path, body, key)
                    cpu[variant].append((cpu_of(server) - c0) * 1000 / n)
                    wall[variant].append((time.perf_counter() - t0) * 1000 / n)
                done += n
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return {
        variant: {
            "calls": args.calls,
            "server_cpu_ms_per_call": round(statistics.median(cpu[variant]), 3),
            "wall_ms_per_call": round(statistics.median(wall[variant]), 3),
            "blocks_cpu_ms": [round(x, 3) for x in cpu[variant]],
        }
        for variant in VARIANTS
    }


async def call(client: httpx.AsyncClient, path: str, body: dict[str, Any], key: str) -> None:
    headers = {"Idempotency-Key": key} if key else None
    r = await client.post(path, json=body, headers=headers)
    if r.status_code != 201:
        raise RuntimeError(f"{path}: {r.status_code} {r.text[:200]}")


def cpu_of(proc: psutil.Process) -> float:
    """Seconds of CPU of every thread of ``proc``: the scheduler's nanosecond counts on Linux
    (psutil's times tick at 10 ms, too coarse for a block of calls), else psutil's."""
    total = 0
    try:
        for task in Path(f"/proc/{proc.pid}/task").iterdir():
            with contextlib.suppress(OSError):  # a thread that just ended
                total += int((task / "schedstat").read_text().split()[0])
    except OSError:
        t = proc.cpu_times()
        return float(t.user + t.system)
    return total / 1e9


async def amain(args: argparse.Namespace) -> None:
    targets = [Target("this tree", ROOT / "src")]
    targets += [Target(f"src {Path(d).name}", Path(d).resolve() / "src") for d in args.src]
    runs: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rep in range(args.repeat):
        for t in targets if rep % 2 == 0 else targets[::-1]:
            print(f"{t.label} ({t.src}), run {rep + 1}/{args.repeat} ...", flush=True)
            runs[t.label].append(await measure(t, args))
    print(f"\n{'target':<22} | {'variant':<15} | {'server CPU ms/call':>18} | {'wall ms/call':>12}")
    print("-" * 78)
    summary: dict[str, dict[str, Any]] = {}
    for label, rs in runs.items():
        summary[label] = {}
        for variant in VARIANTS:
            c = statistics.median(r[variant]["server_cpu_ms_per_call"] for r in rs)
            w = statistics.median(r[variant]["wall_ms_per_call"] for r in rs)
            summary[label][variant] = {
                "server_cpu_ms_per_call": round(c, 3),
                "wall_ms": round(w, 3),
            }
            print(f"{label:<22} | {variant:<15} | {c:>18.3f} | {w:>12.3f}")
        for kind in ("event", "message"):
            extra = (
                summary[label][f"{kind} keyed"]["server_cpu_ms_per_call"]
                - summary[label][kind]["server_cpu_ms_per_call"]
            )
            summary[label][f"{kind}: keyed minus unkeyed"] = round(extra, 3)
            print(f"{label:<22} | {kind + ' key costs':<15} | {extra:>+18.3f} |")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "keyed_posts.json"
    load = os.getloadavg()
    payload = {"config": {**vars(args), "load_at_end": load}, "summary": summary, "runs": runs}
    out.write_text(json.dumps(payload, indent=2))
    print(f"load average at the end: {load[0]:.2f}; wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=300, help="measured calls per variant")
    parser.add_argument("--block", type=int, default=50, help="calls per variant in a row")
    parser.add_argument("--repeat", type=int, default=1, help="servers per target, alternating")
    parser.add_argument(
        "--src", action="append", default=[], metavar="DIR", help="another tree to serve from"
    )
    asyncio.run(amain(parser.parse_args()))


if __name__ == "__main__":
    main()
