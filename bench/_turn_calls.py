"""``bench.agent_turn --calls``: the Python functions an agent runs a turn, from cProfile.

The agent (``bench/_turn_agent.py`` with ``BENCH_AGENT_CALLS=<file>``) starts profiling on
SIGUSR1, sent after the warm-up, and writes the stats when it exits. After idle each distinct
piece of code a turn runs is paid again (``bench.cold_code``), so the distinct functions a turn
are a figure of their own beside the calls. A coroutine counts a call each time it resumes.
"""

from __future__ import annotations

import pstats
from collections import Counter
from pathlib import Path
from typing import Any

ENV = "BENCH_AGENT_CALLS"


def summary(stats_file: Path, turns: int) -> dict[str, Any]:
    """Calls a turn, functions run at least every other turn, and the modules with most."""
    if not stats_file.exists() or turns <= 0:
        return {}
    stats: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(str(stats_file)).stats  # type: ignore[attr-defined]
    calls = 0
    by_module: Counter[str] = Counter()
    for (file, _line, _name), (_primitive, count, *_rest) in stats.items():
        calls += count
        if count * 2 >= turns:
            by_module[_short(file)] += 1
    return {
        "calls_per_turn": round(calls / turns),
        "functions_per_turn": sum(by_module.values()),
        "top_modules": dict(by_module.most_common(12)),
    }


def _short(file: str) -> str:
    for marker in ("/src/", "site-packages/", "python3.11/"):
        if marker in file:
            return file.split(marker)[-1]
    return "builtins" if file == "~" else file


def print_table(per_kind: dict[str, dict[str, Any]]) -> None:
    """Calls and distinct functions a turn by agent, and where the functions are."""
    print("\nPython calls a turn (cProfile; these runs' latencies are not comparable)")
    for kind, calls in per_kind.items():
        if not calls:
            continue
        print(
            f"  {kind}: {calls['calls_per_turn']} calls, {calls['functions_per_turn']} distinct"
            " functions a turn; most in: "
            + ", ".join(f"{m} {n}" for m, n in list(calls["top_modules"].items())[:8])
        )
