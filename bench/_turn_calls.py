"""``bench.agent_turn --calls``: the Python functions an agent and the server run a turn.

The agent (``bench/_turn_agent.py`` with ``BENCH_AGENT_CALLS=<file>``) and the server (a
preamble) start cProfile on SIGUSR1, sent after the warm-up, and write the stats at exit.
After idle each distinct piece of code a turn runs is paid again (``bench.cold_code``), so the
distinct functions a turn are a figure of their own beside the calls. A coroutine counts a
call each time it resumes.
"""

from __future__ import annotations

import pstats
from collections import Counter
from pathlib import Path
from typing import Any

ENV = "BENCH_AGENT_CALLS"


def server_preamble(stats_file: Path) -> str:
    """Statements for ``serve_platform(preamble=...)``: the server's main thread profiled from
    SIGUSR1 on, its stats written at exit (the commit thread is not counted)."""
    return (
        "import atexit, cProfile, signal, sys; _calls = cProfile.Profile();"
        " signal.signal(signal.SIGUSR1, lambda *_: _calls.enable());"
        f" atexit.register(lambda: _calls.dump_stats({str(stats_file)!r}));"
        # uvicorn re-raises SIGTERM under the handler it found: exit through atexit
        " signal.signal(signal.SIGTERM, lambda *_: sys.exit(0));"
    )


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


def print_table(per_kind: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Calls and distinct functions a turn by agent run, its agent's and its server's."""
    print("\nPython calls a turn (cProfile; these runs' latencies are not comparable)")
    for kind, sides in per_kind.items():
        for side, calls in sides.items():
            if calls:
                print(
                    f"  {kind}, {side}: {calls['calls_per_turn']} calls,"
                    f" {calls['functions_per_turn']} distinct functions a turn; most in: "
                    + ", ".join(f"{m} {n}" for m, n in list(calls["top_modules"].items())[:6])
                )
