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
        [--lone 60 [--before DIR]]

``--lone N`` also posts N one at a time (a commit each, as at a low rate) and prints the frames
a commit by b-tree, the search index's passes (once a second) counted apart.

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

from bench._platform import free_port, seed, seed_by, serve_floor, serve_platform

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


def platform(folder: Path, tree: Path | None = None) -> Target:
    """This build, or the one in the source tree ``tree`` (seeded by its own code)."""
    s = seed_by(tree, folder) if tree is not None else asyncio.run(seed(folder))
    port = free_port()
    mention = [{"id": s.agent_id}]
    src = None if tree is None else tree / "src"
    return Target(
        "before" if tree is not None else "band",
        folder / "band.db",
        lambda: serve_platform(folder, port, pythonpath=src),
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
        if wal[offset + 8 : offset + 16] != wal[16:24]:
            break  # a frame left from before the WAL was restarted (after a checkpoint)
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


async def one_at_a_time(t: Target, first: int, n: int) -> None:
    """``n`` posts, each answered before the next is sent (a commit each)."""
    async with httpx.AsyncClient(headers=t.headers, timeout=30) as client:
        for i in range(n):
            answer = await client.post(t.url, json=t.body(first + i))
            if answer.status_code >= 300:
                raise RuntimeError(f"{t.name}: a post failed: {answer.status_code}")


def measure(t: Target, n: int, warm: int, tag: int, lone: bool = False) -> dict[str, Any]:
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
        salts = wal.read_bytes()[16:24] if wal.exists() else b""
        before = len(frames_of(wal.read_bytes())) if wal.exists() else 0
        send = one_at_a_time if lone else burst
        asyncio.run(send(t, tag * 1_000_000 + 900_000, n))
        time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)  # the WAL stays as the burst left it
        proc.wait()
    if before and wal.read_bytes()[16:24] != salts:
        raise RuntimeError(f"{t.name}: the WAL was checkpointed and restarted: post fewer")
    frames = frames_of(wal.read_bytes())[before:]
    names = btree_names(t.db)
    by_tree = Counter(names.get(page, "(new page)") for page, _ in frames)
    commits = sum(1 for _, ends in frames if ends)
    if lone:  # per commit, the search index's passes (once a second) apart
        fts = {k: v for k, v in by_tree.items() if k.startswith("message_search")}
        by_tree = Counter({k: v for k, v in by_tree.items() if k not in fts})
        by_tree["(search index passes)"] = sum(fts.values())
    return {
        "target": t.name,
        "burst": f"{n} lone" if lone else n,
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
    parser.add_argument(
        "--lone",
        type=int,
        default=0,
        help="also this many posts one at a time (a commit each); frames a commit by b-tree",
    )
    parser.add_argument(
        "--before", help="with --lone: also the build in this source tree (e.g. a git archive)"
    )
    args = parser.parse_args()
    rows = []
    if args.lone:
        makers: list[Callable[[Path], Target]] = [floor, platform]
        if args.before:
            tree = Path(args.before).resolve()
            makers.insert(1, lambda folder: platform(folder, tree))
        for make in makers:
            t = make(Path(tempfile.mkdtemp(prefix="band-pages-")))
            print(f"  {t.name}: warm {args.warm}, {args.lone} one at a time", flush=True)
            rows.append(measure(t, args.lone, args.warm, 99, lone=True))
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
        commits = max(1, r["commits"])
        trees = ", ".join(f"{name} {count / commits:.2f}" for name, count in r["by_btree"].items())
        print(f"{r['target']} burst {r['burst']}, frames a commit: {trees}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "commit_pages.json"
    out.write_text(json.dumps({"bursts": rows, "warm": args.warm}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
