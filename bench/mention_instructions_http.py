"""Instructions a person's mention costs the server over real HTTP and WebSocket: callgrind.

``bench.mention_instructions`` counts the ASGI app in process; this counts the whole server
process as ``band serve`` runs it (uvicorn, uvloop, httptools, the socket's frames written to
the kernel) and the floor's (``bench/floor_app.py``), each under ``valgrind --tool=callgrind``,
driven by ``bench._loadgen`` in its own process at a low rate (one mention at a time: each its
own group commit), the post and push of ``bench.mention_latency``. Per build: a warm-up drive;
the server's instructions over ``--idle`` seconds without load (its timers); then a drive of N
mentions and one of 3N, each from zeroed counters (``callgrind_control``). A mention costs
``(3N drive - N drive - idle rate x their time difference) / 2N``: the load generator's
connections and the socket's join, the same in both drives, cancel out. Every push must arrive.
Instructions do not move with the machine's load; the kernel's share (syscalls, fsync) is not
counted: ``bench.mention_latency``'s CPU figures have it.

    .venv/bin/python -m bench.mention_instructions_http [--posts 80] [--rate 8] [--idle 10]
        [--src DIR ...] [--no-floor] [--keep DIR]

Prints a table (each build's thousands of instructions a mention, its ratio to the floor, its
instructions a second idle) and writes bench/results/mention_instructions_http.json; ``--keep``
keeps the dumps (``callgrind_annotate``: by library and function; the first dumps after a zero
may carry self costs from before it, their totals do not).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench._platform import (
    floor_mention_spec,
    free_port,
    mention_spec,
    seed,
    seed_by,
    serve_floor,
    serve_platform,
)
from bench.mention_latency import Target, drive

RESULTS = Path(__file__).parent / "results"
START_TIMEOUT = 900.0  # a server's imports under callgrind take minutes on a slow machine


def dump_total(path: Path) -> int:
    """A callgrind dump's total instructions (its ``summary``: every thread since the zero)."""
    for line in path.read_text().splitlines():
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"no summary in {path}")


class Counted:
    """A server process under callgrind, its counters zeroed and dumped on demand."""

    def __init__(self, proc: subprocess.Popen[bytes], out: Path) -> None:
        self.proc = proc
        self.out = out

    def zero(self) -> None:
        subprocess.run(
            ["callgrind_control", "-z", str(self.proc.pid)], check=True, capture_output=True
        )

    def dump(self, name: str) -> int:
        """Dump the counters since the last zero; the dump is kept as ``name``."""
        before = set(self.out.glob("cg.*"))
        subprocess.run(
            ["callgrind_control", "-d", str(self.proc.pid)], check=True, capture_output=True
        )
        deadline = time.monotonic() + 60
        while not (new := set(self.out.glob("cg.*")) - before) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not new:
            raise RuntimeError(f"callgrind wrote no dump for {self.proc.pid}")
        time.sleep(1.0)  # callgrind_control returns once the dump is written; let it close
        kept = self.out / name
        next(iter(new)).rename(kept)
        return dump_total(kept)


def measure(
    name: str, counted: Counted, spec: dict[str, Any], args: argparse.Namespace
) -> dict[str, Any]:
    """One build's instructions a mention (see the module docstring)."""
    target = Target(name, [counted.proc], spec)
    seconds = args.posts / args.rate
    drive(target, args.rate, seconds, "warm")
    counted.zero()
    started = time.monotonic()
    time.sleep(args.idle)
    idle = counted.dump("idle.out")
    idle_seconds = time.monotonic() - started
    drives = []
    for label, posts in (("a", args.posts), ("b", 3 * args.posts)):
        counted.zero()
        started = time.monotonic()
        row = drive(target, args.rate, posts / args.rate, label)
        costs = counted.dump(f"{label}.out")
        if row["received"] != posts or row["errors"]:
            raise RuntimeError(f"{name}: {row['received']}/{posts} pushes, {row['errors']} errors")
        drives.append((costs, time.monotonic() - started))
    (a, a_seconds), (b, b_seconds) = drives
    extra = b_seconds - a_seconds
    per_mention = (b - a - idle / idle_seconds * extra) / (2 * args.posts) / 1000
    return {
        "k_instructions": round(per_mention, 1),
        "idle_k_per_second": round(idle / idle_seconds / 1000, 1),
    }


def valgrind(out: Path) -> tuple[str, ...]:
    """The command a server runs under: callgrind, its dumps in ``out``."""
    return (
        "valgrind",
        "--quiet",
        "--tool=callgrind",
        "--dump-instr=no",
        f"--callgrind-out-file={out / 'cg.%p'}",
    )


def run_build(
    name: str, src: Path | None, args: argparse.Namespace, keep: Path, stack: ExitStack
) -> dict[str, Any]:
    """Start one build's server under callgrind (the floor's when ``name`` is ``floor``)."""
    out = keep / name
    out.mkdir(parents=True, exist_ok=True)
    data = Path(tempfile.mkdtemp(prefix="band-cghttp-"))
    stack.callback(shutil.rmtree, data, True)
    port = free_port()
    prefix = valgrind(out)
    if name == "floor":
        proc = serve_floor(data, port, prefix, START_TIMEOUT)
        spec = floor_mention_spec(port, 4)
    else:
        s = seed_by(src, data) if src is not None else asyncio.run(seed(data))
        pythonpath = None if src is None else src / "src"
        proc = serve_platform(data, port, None, None, pythonpath, prefix, START_TIMEOUT)
        spec = mention_spec(s, port, port, 4)
    try:
        return measure(name, Counted(proc, out), spec, args)
    finally:
        proc.kill()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--posts", type=int, default=80, help="N: mentions in the short drive")
    parser.add_argument(
        "--rate", type=float, default=8.0, help="mentions a second (low: one at a time)"
    )
    parser.add_argument("--idle", type=float, default=10.0, help="seconds counted without load")
    parser.add_argument(
        "--src", type=Path, action="append", default=[], help="another build's tree"
    )
    parser.add_argument("--no-floor", action="store_true", help="leave the floor out")
    parser.add_argument("--keep", type=Path, help="keep the callgrind dumps in this folder")
    args = parser.parse_args()
    builds: list[tuple[str, Path | None]] = [] if args.no_floor else [("floor", None)]
    builds.append(("this tree", None))
    builds += [(str(src), src) for src in args.src]
    results: dict[str, dict[str, Any]] = {}
    with ExitStack() as stack:
        keep = args.keep or Path(tempfile.mkdtemp(prefix="band-cghttp-dumps-"))
        if args.keep is None:
            stack.callback(shutil.rmtree, keep, True)
        for index, (name, src) in enumerate(builds):
            print(f"{name}: under callgrind ...", flush=True)
            label = "floor" if name == "floor" else f"build{index}"
            results[name] = run_build(label, src, args, keep, stack)
    report(results, args)


def report(results: dict[str, dict[str, Any]], args: argparse.Namespace) -> None:
    floor = results.get("floor", {}).get("k_instructions")
    ratio: Callable[[float], str] = lambda k: f"{k / floor:.2f}x" if floor else "-"  # noqa: E731
    print("\nk instructions a mention over HTTP (one at a time)")
    print(f"{'build':<24} | {'k instr.':>9} | {'/ floor':>7} | {'idle k/s':>8}")
    for name, row in results.items():
        k = row["k_instructions"]
        print(f"{name[-24:]:<24} | {k:9.1f} | {ratio(k):>7} | {row['idle_k_per_second']:8.1f}")
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / "mention_instructions_http.json"
    payload = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "results": results,
    }
    path.write_text(json.dumps(payload, indent=2, default=str))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
