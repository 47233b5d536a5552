"""Coding agents, one person's journey timed: each adapter beside Codex, in one run.

For every coding adapter this runs its ``test_journey_timings`` (``band serve``, the real
CLI or the stand-in, the fake model endpoint, all on loopback) with ``BAND_JOURNEY_OUT``
set, and reads back the seconds it took for: the agent to come online (``start``), a mention
to be answered while the room's agent process starts (``first reply``), a request needing
approval to reach the room (``asked``), the grant to produce the reply (``round trip``), and
a restarted agent to answer on the room's saved session (``resume``). Medians over
``--runs``. Claude's journey runs in ``.venvs/claude-sdk`` (``scripts/test-adapter
claude-sdk`` builds it); adapters whose CLI is not installed are reported as skipped.

    .venv/bin/python -m bench.coding_journeys [--runs 1] [--only codex,claude_sdk,...]

Prints a table and writes bench/results/coding_journeys.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
PHASES = ("start", "first_reply", "approval_asked", "approval_round_trip", "resume")


@dataclass(frozen=True)
class Journey:
    key: str
    test: str  # pytest node id (relative to ROOT)
    what_ran: str
    venv: str = ".venv"


JOURNEYS = (
    Journey(
        "codex",
        "tests/adapters/codex/test_codex_e2e.py::test_journey_timings",
        "real: codex app-server 0.169.0",
    ),
    Journey(
        "claude_sdk",
        "tests/adapters/claude_sdk/test_claude_e2e.py::test_journey_timings",
        "real: claude 2.1.332 via claude-agent-sdk",
        ".venvs/claude-sdk",
    ),
    Journey(
        "opencode",
        "tests/adapters/opencode/test_opencode_e2e.py::test_journey_timings",
        "real: opencode serve 1.18.33",
    ),
    Journey(
        "copilot_sdk",
        "tests/adapters/copilot_sdk/test_copilot_sdk_e2e.py::test_journey_timings",
        "real: github-copilot-sdk + copilot 1.0.102 (BYOK); approval = ask_user",
    ),
    Journey(
        "copilot_acp",
        "tests/adapters/acp/test_copilot_acp.py::test_journey_timings",
        "real: copilot --acp 1.0.102 (BYOK)",
    ),
    Journey(
        "codex_acp",
        "tests/adapters/acp/test_codex_acp.py::test_journey_timings",
        "real: codex-acp 0.16.0",
    ),
    Journey(
        "acp",
        "tests/adapters/acp/test_acp_e2e.py::test_journey_timings",
        "scripted ACP agent (ACP SDK)",
    ),
    Journey(
        "cursor_acp",
        "tests/adapters/acp/test_acp_profiles.py::test_journey_timings[cursor]",
        "stand-in (Cursor's ACP extensions)",
    ),
    Journey(
        "omp_acp",
        "tests/adapters/acp/test_acp_profiles.py::test_journey_timings[omp]",
        "stand-in (OMP's launch flags)",
    ),
)


def run_one(journey: Journey, out: Path) -> tuple[str, float]:
    """Run one journey; its outcome (passed / skipped: why / failed: why) and wall time."""
    python = ROOT / journey.venv / "bin" / "python"
    if not python.exists():
        return f"skipped: {journey.venv} is not built", 0.0
    env = {**os.environ, "BAND_JOURNEY_OUT": str(out)}
    argv = [str(python), "-m", "pytest", journey.test, "-q", "-p", "no:cacheprovider", "-rs"]
    began = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    took = time.perf_counter() - began
    tail = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode == 0 and "skipped" in tail and "passed" not in tail:
        reason = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
        return f"skipped: {(reason or [tail])[0][:100]}", took
    if done.returncode != 0:
        return f"failed: {tail[:100]}", took
    return "passed", took


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="journeys per adapter (medians)")
    parser.add_argument("--only", default="", help="comma-separated keys, e.g. codex,opencode")
    args = parser.parse_args()
    chosen = [j for j in JOURNEYS if not args.only or j.key in args.only.split(",")]
    rows: list[dict[str, Any]] = []
    for journey in chosen:
        samples: list[dict[str, float]] = []
        outcome = ""
        for n in range(args.runs):
            with tempfile.TemporaryDirectory() as scratch:
                out = Path(scratch) / "journey.jsonl"
                outcome, took = run_one(journey, out)
                if out.exists():
                    samples += [json.loads(line) for line in out.read_text().splitlines()]
            print(f"{journey.key} run {n + 1}/{args.runs}: {outcome} ({took:.0f} s)", flush=True)
            if outcome != "passed":
                break
        row: dict[str, Any] = {"adapter": journey.key, "ran": journey.what_ran, "outcome": outcome}
        row["label"] = samples[0]["adapter"] if samples else journey.key
        for phase in PHASES:
            values = [s[phase] for s in samples if phase in s]
            row[phase] = round(statistics.median(values), 2) if values else None
        row["runs"] = len(samples)
        rows.append(row)
    print_table(rows)
    load = os.getloadavg()
    RESULTS.mkdir(parents=True, exist_ok=True)
    target = RESULTS / "coding_journeys.json"
    record = {"load_average": [round(x, 2) for x in load], "cpus": os.cpu_count(), "rows": rows}
    target.write_text(json.dumps(record, indent=2) + "\n")
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; wrote {target}")


def print_table(rows: list[dict[str, Any]]) -> None:
    head = ("adapter", "start", "first reply", "asked", "round trip", "resume", "ran")
    print("\n| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        cells = [row["label"]]
        for phase in PHASES:
            value = row[phase]
            cells.append("-" if value is None else f"{value:.1f} s")
        ran = row["ran"] if row["outcome"] == "passed" else f"{row['ran']} ({row['outcome']})"
        cells.append(ran)
        print("| " + " | ".join(cells) + " |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
