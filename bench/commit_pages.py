"""Pages a mention writes: the WAL frames of a burst of posts, by the b-tree each page is in.

Every page a commit touches is written to SQLite's WAL in full (4 KiB) and fsynced, and later
copied into the database by a checkpoint: pages per message are what the disk and the writer's
thread pay for, whatever the Python costs. This counts them, exactly (no timing, so a busy
machine does not move it). For the platform (a person's mention of an agent, the post of
``bench.mention_latency``) and for the floor (``bench/floor_app.py``): seed and warm the
database, restart the server on it (its clean stop checkpoints the WAL), post a burst of N at
once (they share group-commit batches as under load), kill the server (so the WAL stays),
then read the burst's frames and name each page's b-tree with SQLite's ``dbstat`` on a copy.

    .venv/bin/python -m bench.commit_pages [--bursts 1,8,32] [--warm 1000]

Prints a table and writes bench/results/commit_pages.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import signal
import sqlite3
import struct
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench._platform import free_port, seed, serve_floor, serve_platform

RESULTS = Path(__file__).parent / "results"
WAL_HEADER = 32
FRAME_HEADER = 24


@dataclass
class Target:
    """A server to restart on one data folder, and how to post to it."""

    name: str
    db: Path
    start: Callable[[], subprocess.Popen[bytes]]
    url: str
    headers: dict[str, str]
    body: Callable[[int], dict[str, Any]]


def platform(folder: Path) -> Target:
    s = asyncio.run(seed(folder))
    port = free_port()
    mention = [{"id": s.agent_id}]
    return Target(
        "band",
        folder / "band.db",
        lambda: serve_platform(folder, port),
        f"http://127.0.0.1:{port}/api/v1/me/chats/{s.room_id}/messages",
        {"x-api-key": s.user_key},
        lambda i: {"message": {"content": f"ping {i}", "mentions": mention}},
    )


def floor(folder: Path) -> Target:
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    return Target(
        "floor",
        folder / "floor.db",
        lambda: serve_floor(folder, port),
        f"http://127.0.0.1:{port}/post",
        {},
        lambda i: {"content": f"ping {i}"},
    )


async def burst(t: Target, first: int, n: int) -> None:
    """``n`` posts at once; every one must be answered 2xx (durable)."""
    limits = httpx.Limits(max_connections=n)
    async with httpx.AsyncClient(headers=t.headers, limits=limits, timeout=30) as client:
        answers = await asyncio.gather(
            *(client.post(t.url, json=t.body(first + i)) for i in range(n))
        )
    failed = [a.status_code for a in answers if a.status_code >= 300]
    if failed:
        raise RuntimeError(f"{t.name}: {len(failed)} posts failed: {failed[:5]}")


def frames_of(wal: bytes) -> list[tuple[int, bool]]:
    """Each frame's page number and whether it ends a commit (none in an empty WAL)."""
    if len(wal) < WAL_HEADER:
        return []
    page_size = struct.unpack(">I", wal[8:12])[0]
    out, offset = [], WAL_HEADER
    while offset + FRAME_HEADER + page_size <= len(wal):
        page, size_after = struct.unpack(">II", wal[offset : offset + 8])
        out.append((page, size_after != 0))
        offset += FRAME_HEADER + page_size
    return out


def btree_names(db: Path) -> dict[int, str]:
    """Page number -> b-tree name, read from a copy (database and WAL) with ``dbstat``."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "copy.db"
        shutil.copy(db, copy)
        wal = db.with_name(db.name + "-wal")
        if wal.exists():
            shutil.copy(wal, copy.with_name("copy.db-wal"))
        conn = sqlite3.connect(copy)
        try:
            names = dict(conn.execute("SELECT pageno, name FROM dbstat"))
        finally:
            conn.close()
    names[1] = "(file header)"
    return names


def measure(t: Target, n: int, warm: int, tag: int) -> dict[str, Any]:
    proc = t.start()
    try:
        for k in range(warm // 50):  # b-trees of a used database, not an empty one
            asyncio.run(burst(t, tag * 1_000_000 + k * 50, 50))
    finally:
        proc.send_signal(signal.SIGINT)  # a clean stop checkpoints the WAL
        proc.wait(timeout=60)
    proc = t.start()
    try:
        time.sleep(0.3)
        wal = t.db.with_name(t.db.name + "-wal")
        before = len(frames_of(wal.read_bytes())) if wal.exists() else 0
        asyncio.run(burst(t, tag * 1_000_000 + 900_000, n))
        time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)  # the WAL stays as the burst left it
        proc.wait()
    frames = frames_of(wal.read_bytes())[before:]
    names = btree_names(t.db)
    by_tree = Counter(names.get(page, "(new page)") for page, _ in frames)
    commits = sum(1 for _, ends in frames if ends)
    return {
        "target": t.name,
        "burst": n,
        "commits": commits,
        "frames": len(frames),
        "frames_per_commit": round(len(frames) / max(1, commits), 1),
        "frames_per_message": round(len(frames) / n, 2),
        "by_btree": dict(by_tree.most_common()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bursts", default="1,8,32", help="posts sent at once, comma-separated")
    parser.add_argument("--warm", type=int, default=1000, help="posts written before each burst")
    args = parser.parse_args()
    rows = []
    for i, n in enumerate(int(b) for b in args.bursts.split(",")):
        for make in (floor, platform):
            t = make(Path(tempfile.mkdtemp(prefix="band-pages-")))
            print(f"  {t.name}: warm {args.warm}, burst of {n}", flush=True)
            rows.append(measure(t, n, args.warm, i))
    head = f"{'target':>6} {'burst':>5} | {'commits':>7} {'frames':>6} {'/commit':>7}"
    print(f"{head} {'/message':>8}")
    for r in rows:
        print(
            f"{r['target']:>6} {r['burst']:>5} | {r['commits']:>7} {r['frames']:>6}"
            f" {r['frames_per_commit']:>7} {r['frames_per_message']:>8}"
        )
    for r in rows:
        trees = ", ".join(f"{name} {count}" for name, count in r["by_btree"].items())
        print(f"{r['target']} burst {r['burst']}: {trees}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "commit_pages.json"
    out.write_text(json.dumps({"bursts": rows, "warm": args.warm}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
