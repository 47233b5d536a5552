"""What a small piece of Python costs when it runs again after the process was idle.

An agent turn at 100 mentions/s in 50 rooms runs each step once, ~10 ms after the process last
ran: on a shared host the process's caches are no longer its own by then. This times a few
pieces the platform and the SDK run on every turn (a no-op call, JSON both ways, a pydantic
validation, a SHA-256, a UUID, a regular expression) three ways in one process: back to back
(hot), right after a sleep of ``--gap`` ms, and right after spinning on the clock for as long
(the CPU busy but running none of the piece's code). A memory probe reads 100 cache lines of
one page, or one line on each of 100 pages 2 MiB apart, to tell data misses from code misses.

    .venv/bin/python -m bench.cold_code [--gap 10] [--rounds 150]

Prints a table (median µs a call) and writes bench/results/cold_code.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import time
import uuid
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

RESULTS = Path(__file__).parent / "results"
PAGE = 4096
REGION = 2 * 1024 * 1024


class Mention(BaseModel):
    """A message shaped like a push's payload."""

    id: str
    room_id: str
    content: str
    mentions: list[dict[str, str]] = []


SPEECH = re.compile(r"^/agent/chats/[^/]+/(messages|events)$")
PAYLOAD = {"id": "m1", "room_id": "r1", "content": "hi @bot", "mentions": [{"id": "a1"}]}
RAW = json.dumps(PAYLOAD)


def _noop() -> None:
    return None


@cache
def _memory() -> bytearray:
    """The data probe's 220 MiB, made on the first measure (not when the module is imported),
    every page faulted in before any timing."""
    memory = bytearray(110 * REGION)
    for offset in range(0, len(memory), PAGE):
        memory[offset] = 1
    return memory


def _read(offsets: list[int]) -> int:
    memory = _memory()
    total = 0
    for offset in offsets:
        total += memory[offset]
    return total


def pieces() -> dict[str, Callable[[], object]]:
    """The pieces timed, by name."""
    one_page = [REGION + 64 * i for i in range(64)] + [REGION + PAGE + 64 * i for i in range(36)]
    far_pages = [REGION * (i + 1) + PAGE * (i % 7) for i in range(100)]
    return {
        "no-op call": _noop,
        "json.loads": lambda: json.loads(RAW),
        "json.dumps": lambda: json.dumps(PAYLOAD),
        "pydantic validate": lambda: Mention.model_validate(PAYLOAD),
        "sha256": lambda: hashlib.sha256(RAW.encode()).hexdigest(),
        "uuid4": uuid.uuid4,
        "regex match": lambda: SPEECH.match("/agent/chats/r1/messages"),
        "100 lines, 2 pages": lambda: _read(one_page),
        "100 pages 2 MiB apart": lambda: _read(far_pages),
    }


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def median_us(piece: Callable[[], object], rounds: int, wait: Callable[[], None]) -> float:
    """The median time of one call of ``piece`` right after ``wait``, in µs."""
    took = []
    for _ in range(rounds):
        wait()
        start = time.perf_counter_ns()
        piece()
        took.append(time.perf_counter_ns() - start)
    return round(statistics.median(took) / 1000, 2)


def measure(gap_ms: float, rounds: int) -> list[dict[str, Any]]:
    """Each piece hot, after a sleep and after a spin of ``gap_ms``."""
    _memory()
    gap = gap_ms / 1000
    rows = []
    for name, piece in pieces().items():
        hot = median_us(piece, rounds, lambda: None)
        slept = median_us(piece, rounds, lambda: time.sleep(gap))
        spun = median_us(piece, rounds, lambda: _spin(gap))
        rows.append(
            {
                "piece": name,
                "hot_us": hot,
                "after_sleep_us": slept,
                "after_spin_us": spun,
                "after_sleep_x_hot": round(slept / hot, 1) if hot else None,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gap", type=float, default=10.0, help="idle before a call, ms")
    parser.add_argument("--rounds", type=int, default=150, help="calls timed per piece and way")
    args = parser.parse_args()
    rows = measure(args.gap, args.rounds)
    print(f"median µs a call: hot, after {args.gap:g} ms asleep, after {args.gap:g} ms spinning")
    print(f"{'piece':24s} | {'hot':>8s} {'slept':>8s} {'spun':>8s} | slept / hot")
    for row in rows:
        print(
            f"{row['piece']:24s} | {row['hot_us']:8.2f} {row['after_sleep_us']:8.2f}"
            f" {row['after_spin_us']:8.2f} | {row['after_sleep_x_hot']}"
        )
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "cold_code.json"
    load = os.getloadavg()[0]
    out.write_text(json.dumps({"gap_ms": args.gap, "load": load, "rows": rows}, indent=2))
    print(f"load average before {load:.2f}; wrote {out}")


if __name__ == "__main__":
    main()
