"""Instructions and CPU of a person's mention post, in process: callgrind, then process time.

Issue 35's target 1 compares the server's CPU per mention with the floor's. On this shared
machine CPU time moves with the other work; instruction counts do not. Each build runs in a
child process that seeds a person, an agent and a room, starts the platform's ASGI app (SQLite,
the same middleware stack as ``band serve``) and keeps a socket of the agent joined to the room
in the node's hub (each push is built and framed as for a real socket; the frame is kept, not
written). It then posts mentions as ``bench.mention_latency`` does (``POST
/api/v1/me/chats/{room}/messages``, ``{"message": {"content": "ping N", "mentions": [{"id":
AGENT}]}}``, no Idempotency-Key), one at a time (each unit a batch of its own, committed on the
loop) and 16 in flight (units share group-commit batches, committed on the writer's thread);
every post must answer 201 and push one frame to the agent.

Each child runs on uvloop, the event loop ``band serve`` and the floor's server run on
(``server_stack.uvicorn_options``): on asyncio's own loop, whose scheduling is Python, the
floor's thread hop a commit cost it ~35% more than over HTTP and the ratios flattered us.

``--mode instructions`` runs each child under ``valgrind --tool=callgrind`` and counts every
thread's instructions between two markers (libc.s ``srand48`` and ``lcong48``, called through
ctypes around each measured block: ``--zero-before`` / ``--dump-before``); what would expire by
the clock does not (the key and roster caches, the search index's pass once a second, the
delivery-lease sweep every 30 s, the WAL's checkpoint passes 0.1 s after a commit), so the count
does not move with the machine's speed.
``--mode cpu`` times each block with ``time.process_time`` (all threads), builds alternated as in
``bench.keyed_inprocess``. ``--src DIR`` (a tree with ``src/band_server``, e.g. a ``git
archive`` export of main) adds a build.

The **floor** build (target 1's reference; ``--no-floor`` leaves it out) runs
``bench.floor_app``'s ASGI app the same way: the same posts and warm-up, one listener socket (a
fake receiving each frame, as the agent's), the floor's group-commit writer on its aiosqlite
thread (callgrind counts every thread, so that thread's instructions count too).

    .venv/bin/python -m bench.mention_instructions [--mode instructions|cpu] [--posts 160]
        [--src DIR] [--repeat 3] [--keep DIR] [--no-floor]

Prints a table and writes bench/results/mention_instructions_<mode>.json; ``--keep DIR`` keeps
the callgrind files (read them with ``callgrind_annotate``).
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
BLOCKS = ((1, "one at a time"), (16, "16 in flight"))
WARM = 48


class _Socket:
    """A socket as the hub sees it: frames kept, none written."""

    def __init__(self, principal: Any) -> None:
        self.id = "bench-socket"
        self.principal = principal
        self.frames: list[str] = []

    def send_text(self, frame: str) -> None:
        self.frames.append(frame)

    def close(self, code: int) -> None:
        raise RuntimeError(f"the bench socket was closed ({code})")


async def child(posts: int, mode: str) -> dict[str, float]:
    """In the child: seed, start the app, post; per mention, instructions' markers or CPU ms."""
    import logging

    from band_protocol import topic
    from band_server.app import create_app
    from band_server.config import Settings
    from band_server.services.identity.principals import Principal
    from band_server.store import group_batch

    from ._asgi_post import asgi_post
    from ._platform import seed

    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        s = await seed(data)
        app = create_app(Settings(data_dir=data, database_url=None, redis_url=None))
        path = f"/api/v1/me/chats/{s.room_id}/messages"
        mention = json.dumps([{"id": s.agent_id}])
        count = 0

        async def post() -> None:
            nonlocal count
            count += 1
            raw = f'{{"message": {{"content": "ping {count}", "mentions": {mention}}}}}'.encode()
            status = await asgi_post(app, path, raw, s.user_key)
            if status != 201:
                raise RuntimeError(f"mention post answered {status}")

        async with app.router.lifespan_context(app):
            platform = app.state.platform
            if mode == "instructions":
                # What expires by the clock would run at a pace set by the machine (valgrind is
                # tens of times slower, and slower still under load): the key and roster caches
                # keep their entries, and the search index's pass in the commit path comes
                # every ``INDEX_UNITS`` units only, as at thousands of posts a second.
                platform.auth.ttl = platform.rosters.ttl = math.inf
                group_batch.INDEX_EVERY = math.inf
                # The delivery-lease sweep (a read every 30 s) falls into a measured block or
                # not as the machine's load has it: one sweep moved a block by ~28k a mention.
                await platform.leases.stop()
                # The WAL's checkpoint passes come 0.1 s after a commit (store.wal_checkpoint):
                # under valgrind that is a pass every few posts, where a node at speed makes
                # one for hundreds. None runs (the writer's own cap is far off).
                checkpoints = platform.db._checkpoints
                if checkpoints is not None:
                    checkpoints.delay = 1e6
            agent = Principal("agent", s.agent_id, "Target", "target", s.user_id)
            socket = _Socket(agent)
            platform.hub.register(socket)
            platform.hub.join(socket, topic("chat_room", s.room_id), "1")
            return await _blocks(post, socket.frames, posts, mode, "")


class _Listener:
    """The floor's one listener socket: frames kept, none written."""

    def __init__(self) -> None:
        self.frames: list[str] = []

    async def send_text(self, frame: str) -> None:
        self.frames.append(frame)


async def floor_child(posts: int, mode: str) -> dict[str, float]:
    """As ``child``, for ``bench.floor_app``'s app: its database in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["FLOOR_DB"] = str(Path(tmp) / "floor.db")
        from . import floor_app  # reads FLOOR_DB on import
        from ._asgi_post import asgi_post

        app = floor_app.app
        count = 0

        async def post() -> None:
            nonlocal count
            count += 1
            raw = f'{{"message": {{"content": "ping {count}", "mentions": [{{"id": "a"}}]}}}}'
            status = await asgi_post(app, "/post", raw.encode(), "unused")
            if status != 201:
                raise RuntimeError(f"floor post answered {status}")

        async with app.router.lifespan_context(app):
            listener = _Listener()
            floor_app.listeners.add(listener)  # type: ignore[arg-type]
            return await _blocks(post, listener.frames, posts, mode, "floor, ")


async def _blocks(
    post: Callable[[], Awaitable[None]], frames: list[str], posts: int, mode: str, name: str
) -> dict[str, float]:
    """Each of ``BLOCKS``: warm, then ``posts`` posts measured (between the markers, or by
    ``process_time``), each of which must have pushed one ``message_created`` frame."""
    libc = ctypes.CDLL(None)
    start_mark: Callable[[], None] = lambda: libc.srand48(ctypes.c_long(0))  # noqa: E731
    seed48 = (ctypes.c_ushort * 7)()
    stop_mark: Callable[[], None] = lambda: libc.lcong48(seed48)  # noqa: E731

    async def block(concurrency: int) -> int:
        for _ in range(posts // concurrency):
            await asyncio.gather(*(post() for _ in range(concurrency)))
        return posts // concurrency * concurrency

    result: dict[str, float] = {}
    if mode == "instructions":
        # A first dump takes what threads that ended (the seed's hashing) left behind.
        start_mark()
        stop_mark()
    for concurrency, label in BLOCKS:
        await block(concurrency)  # warm: caches, compiled statements, the writer
        for _ in range(WARM // concurrency):
            await asyncio.gather(*(post() for _ in range(concurrency)))
        before = len(frames)
        t0 = time.process_time()
        if mode == "instructions":
            start_mark()
        done = await block(concurrency)
        if mode == "instructions":
            stop_mark()
        result[label] = (time.process_time() - t0) * 1000 / done
        pushed = frames[before:]
        if len(pushed) != done or any('"message_created"' not in f for f in pushed):
            raise RuntimeError(f"{name}{label}: {len(pushed)} pushes for {done} posts")
        result[f"{label} posts"] = done
    return result


def _instructions(dump: Path) -> int:
    for line in dump.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {dump}")


def run_build(src: Path | None, args: argparse.Namespace, out_dir: Path) -> dict[str, float]:
    """One child for ``src``'s platform, or the floor's app (``src`` None)."""
    path = os.pathsep.join([str(src or ROOT / "src"), str(ROOT)])
    env = dict(os.environ, PYTHONPATH=path, PYTHONHASHSEED="0")
    entry = "child" if src is not None else "floor_child"
    code = (
        f"import uvloop, json; from bench.mention_instructions import {entry};"
        f"print(json.dumps(uvloop.run({entry}({args.posts}, {args.mode!r}))))"
    )
    command = [sys.executable, "-c", code]
    if args.mode == "instructions":
        for old in out_dir.glob("callgrind.out*"):
            old.unlink()
        command = [
            "valgrind",
            "--tool=callgrind",
            "--zero-before=srand48_r",
            "--dump-before=lcong48_r",
            "--dump-instr=no",
            f"--callgrind-out-file={out_dir / 'callgrind.out'}",
            *command,
        ]
    out = subprocess.run(command, env=env, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"{src}: {out.stderr[-3000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    if args.mode == "instructions":
        # The first dump is what came before; then one per measured block, in order
        # (``callgrind.out.2``, ``.3``); the file without a number is the rest of the run.
        dumps = sorted(out_dir.glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
        for (_, label), dump in zip(BLOCKS, dumps[1:], strict=True):
            result[label] = _instructions(dump) / result[f"{label} posts"] / 1000
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mode", choices=("instructions", "cpu"), default="instructions")
    parser.add_argument("--posts", type=int, default=160, help="posts in each measured block")
    parser.add_argument("--repeat", type=int, default=1, help="children per build, alternating")
    parser.add_argument(
        "--src", action="append", default=[], metavar="DIR", help="another tree to measure"
    )
    parser.add_argument("--keep", type=Path, help="keep each build's callgrind files here")
    parser.add_argument(
        "--floor", action=argparse.BooleanOptionalAction, default=True, help="the floor's build"
    )
    args = parser.parse_args()
    builds: list[tuple[str, Path | None]] = [("floor", None)] if args.floor else []
    builds.append(("this tree", ROOT / "src"))
    builds += [(f"src {Path(d).name}", Path(d).resolve() / "src") for d in args.src]
    runs: dict[str, list[dict[str, float]]] = defaultdict(list)
    loads: list[float] = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as scratch:
        for rep in range(args.repeat):
            for i, (label, src) in enumerate(builds if rep % 2 == 0 else builds[::-1]):
                print(
                    f"{label} ({src or 'bench.floor_app'}), run {rep + 1}/{args.repeat} ...",
                    flush=True,
                )
                out_dir = (args.keep / f"{i}-{rep}") if args.keep else Path(scratch)
                out_dir.mkdir(parents=True, exist_ok=True)
                runs[label].append(run_build(src, args, out_dir))
                loads.append(os.getloadavg()[0])
    unit = "k instructions" if args.mode == "instructions" else "CPU ms"
    print(f"\n{unit} a mention")
    print(f"{'build':<24} | " + " | ".join(f"{label:>14}" for _, label in BLOCKS))
    summary: dict[str, dict[str, float]] = {}
    for label, rs in runs.items():
        med = {b: round(statistics.median(r[b] for r in rs), 3) for _, b in BLOCKS}
        summary[label] = med
        print(f"{label:<24} | " + " | ".join(f"{med[b]:>14.3f}" for _, b in BLOCKS))
    if "floor" in summary:
        floor = summary["floor"]
        for label, med in summary.items():
            if label != "floor":
                ratios = " | ".join(f"{med[b] / floor[b]:>13.2f}x" for _, b in BLOCKS)
                print(f"{label + ' / floor':<24} | {ratios}")
    print(f"load average (1 min) before and after each child: {loads}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / f"mention_instructions_{args.mode}.json"
    payload = {"config": {**vars(args), "keep": str(args.keep)}, "loads": loads}
    out.write_text(json.dumps({**payload, "summary": summary, "runs": runs}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
