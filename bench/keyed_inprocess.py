"""CPU of a keyed speech post beside an unkeyed one, in process: no HTTP, no client.

``bench.keyed_posts`` measures the same over HTTP, where a key's cost (a tenth of a
millisecond) drowns in the server's HTTP stack and in the shared machine's load. Here each
build runs in a child process that calls the platform's ASGI app directly (SQLite, the same
middleware stack as ``band serve``), an agent's event and message posts without a key and with
a fresh key each, in interleaved blocks; measured: the child's CPU (``time.process_time``, all
its threads) per post. Builds are alternated; ``--src DIR`` (a tree with ``src/band_server``,
e.g. a ``git archive`` export of main) adds one.

    .venv/bin/python -m bench.keyed_inprocess [--posts 300] [--rounds 3] [--repeat 2] [--src DIR]
        [--concurrency 1]

``--concurrency N`` keeps N posts in flight at once (their units share group-commit batches,
as under load); 1 posts one after the other (each unit a batch of its own).

Prints a table and writes bench/results/keyed_inprocess.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("event", "event keyed", "message", "message keyed")
WARM = 30


async def child(posts: int, rounds: int, concurrency: int = 1) -> dict[str, float]:
    """In the child: seed, start the app, post; median ms of CPU per post, by variant."""
    import logging

    from band_server.app import create_app
    from band_server.config import Settings

    from ._asgi_post import asgi_post
    from ._platform import seed

    logging.disable(logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        s = await seed(data)
        app = create_app(Settings(data_dir=data, database_url=None, redis_url=None))
        room = f"/api/v1/agent/chats/{s.room_id}"
        count = 0

        async def post(variant: str) -> None:
            nonlocal count
            count += 1
            body: dict[str, Any]
            if variant.startswith("event"):
                path = f"{room}/events"
                body = {"event": {"content": f"thinking {count}", "message_type": "thought"}}
            else:
                path = f"{room}/messages"
                body = {"message": {"content": f"reply {count}", "mentions": [{"id": s.user_id}]}}
            raw = json.dumps(body).encode()
            extra: list[tuple[bytes, bytes]] = []
            if variant.endswith("keyed"):
                extra.append((b"idempotency-key", f"bench-{uuid.uuid4()}".encode()))
            status = await asgi_post(app, path, raw, s.agent_key, extra)
            if status != 201:
                raise RuntimeError(f"{variant}: {status}")

        async with app.router.lifespan_context(app):
            for variant in VARIANTS:
                for _ in range(WARM):
                    await post(variant)
            cpu: dict[str, list[float]] = defaultdict(list)
            for _ in range(rounds):
                for variant in VARIANTS:
                    t0 = time.process_time()
                    for _ in range(posts // concurrency):
                        await asyncio.gather(*(post(variant) for _ in range(concurrency)))
                    done = posts // concurrency * concurrency
                    cpu[variant].append((time.process_time() - t0) * 1000 / done)
    return {v: statistics.median(cpu[v]) for v in VARIANTS}


def run_build(src: Path, args: argparse.Namespace) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), str(ROOT)]))
    code = (
        "import asyncio, json, sys; from bench.keyed_inprocess import child;"
        f"print(json.dumps(asyncio.run(child({args.posts}, {args.rounds}, {args.concurrency}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode != 0:
        raise RuntimeError(f"{src}: {out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--posts", type=int, default=300, help="posts per variant per round")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds per child")
    parser.add_argument("--repeat", type=int, default=2, help="children per build, alternating")
    parser.add_argument("--concurrency", type=int, default=1, help="posts in flight at once")
    parser.add_argument(
        "--src", action="append", default=[], metavar="DIR", help="another tree to measure"
    )
    args = parser.parse_args()
    builds = [("this tree", ROOT / "src")]
    builds += [(f"src {Path(d).name}", Path(d).resolve() / "src") for d in args.src]
    runs: dict[str, list[dict[str, float]]] = defaultdict(list)
    loads: list[float] = [os.getloadavg()[0]]
    for rep in range(args.repeat):
        for label, src in builds if rep % 2 == 0 else builds[::-1]:
            print(f"{label} ({src}), run {rep + 1}/{args.repeat} ...", flush=True)
            runs[label].append(run_build(src, args))
            loads.append(os.getloadavg()[0])
    header = " | ".join(f"{v:>13}" for v in VARIANTS)
    print(f"\n{'build':<16} | {header} | event key | message key")
    summary: dict[str, dict[str, float]] = {}
    for label, rs in runs.items():
        med = {v: round(statistics.median(r[v] for r in rs), 3) for v in VARIANTS}
        med["event key costs"] = round(med["event keyed"] - med["event"], 3)
        med["message key costs"] = round(med["message keyed"] - med["message"], 3)
        summary[label] = med
        cells = " | ".join(f"{med[v]:>13.3f}" for v in VARIANTS)
        print(
            f"{label:<16} | {cells} | {med['event key costs']:>+9.3f} |"
            f" {med['message key costs']:>+11.3f}"
        )
    print(f"load average (1 min) before and after each child: {loads}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "keyed_inprocess.json"
    payload = {"config": vars(args), "loads": loads, "summary": summary, "runs": runs}
    out.write_text(json.dumps(payload, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
