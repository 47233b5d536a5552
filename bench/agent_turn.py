"""An agent turn end to end: a person's mention until the person's socket has the agent's reply.

The agent has a zero-latency scripted "model" (``bench/_turn_agent.py``: every message is
answered at once by one ``band_send_message`` tool call), so the whole turn is the platform's
and the SDK's share. The agents, one after the other on a fresh server and data folder each
(order alternated per repetition), in one run:

- ``floor``: no SDK, a raw WebSocket and raw HTTP/1.1 posting the same reply (our server's
  least possible turn: what the SDK adds is ours minus this);
- ``floor-sdk``: that floor sending the requests our SDK sends a turn (the claim asked of the
  push, the reply's ``turn_id`` and ``Idempotency-Key``, ``/processed`` after it): ours minus
  floor splits in what those requests cost the platform (floor-sdk minus floor) and what the
  SDK's code costs (ours minus floor-sdk);
- ``ours``: our SDK (this venv);
- ``band-sdk``: the official band-sdk 6.0.1 (tests/compat/.venv), same script, same server.

The person (``bench/_turn_driver.py``, its own process) joins all ``--rooms`` rooms and posts
open-loop mentions at ``--rate`` per second in all, round-robin over the rooms, after a
warm-up of one turn per room. Measured: turn latency p50/p99 from the scheduled send time,
and from the start of the mention's task (the platform's and the SDK's share: the person's
timer fires up to 1 ms late, ``timer late``; a wait for a connection counts in both),
replies received, server and agent CPU per turn (psutil).

    .venv/bin/python -m bench.agent_turn [--rooms 50] [--rate 100] [--seconds 10] [--repeat 2]
        [--agents floor,floor-sdk,ours,band-sdk] [--profile DIR]   (DIR: py-spy raw stacks per run)
        [--timeline]   (stamps at each step of a turn: where its time goes, ``bench._timeline``)
        [--before TREE]   (agent "before": our SDK from TREE/src, same server, paired runs)
        [--calls]   (Python calls and distinct functions a turn, ``bench._turn_calls``)

The server and our agent run this checkout's ``src`` (a worktree measures its own code).

Prints a table and writes bench/results/agent_turn.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
from tests.compat.compat_harness import AgentCreds, Person, Seeder, clean_env, seed

from bench import _timeline, _turn_calls
from bench._platform import free_port, fsync_probe, serve_platform, write_results
from bench.sdk_overhead import ensure_official_python

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results"
AGENT_SCRIPT = Path(__file__).with_name("_turn_agent.py")
AGENT_MODES = {"floor": "raw", "floor-sdk": "raw-sdk"}
TARGET_P50_MS = 3.0
TARGET_P99_MS = 10.0


@dataclass
class World:
    person: Person
    agent: AgentCreds
    rooms: list[str]


async def build_world(data_dir: Path, rooms: int) -> World:
    async def build(s: Seeder) -> World:
        person = await s.person("bench", "Bench")
        agent = await s.agent(person, "Target")
        return World(
            person, agent, [await s.room(person, f"room {i}", [agent]) for i in range(rooms)]
        )

    return await seed(data_dir, build)


def cpu_seconds(proc: psutil.Process) -> float:
    t = proc.cpu_times()
    return float(t.user + t.system)


def start_agent(
    kind: str,
    python: Path,
    world: World,
    port: int,
    workdir: Path,
    src: Path | None = None,
    timeline: Path | None = None,
    calls: Path | None = None,
) -> subprocess.Popen[bytes]:
    stamps: dict[str, str] = {_turn_calls.ENV: str(calls)} if calls is not None else {}
    if timeline is not None:
        stamps[_timeline.ENV] = str(timeline)
        if kind in ("ours", "before"):
            stamps["BENCH_AGENT_PROBES"] = "1"
    env = clean_env(
        **({"PYTHONPATH": str(src)} if src is not None else {}),
        **stamps,
        BENCH_AGENT_MODE=AGENT_MODES.get(kind, "sdk"),
        BENCH_AGENT_ID=world.agent.id,
        BENCH_API_KEY=world.agent.key,
        BENCH_ROOMS=",".join(world.rooms),
        BENCH_PERSON_HANDLE=world.person.handle,
        BAND_WS_URL=f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
        BAND_REST_URL=f"http://127.0.0.1:{port}",
        TMPDIR=str(workdir),
    )
    out = workdir / "agent.out"
    with out.open("wb") as stdout, (workdir / "agent.log").open("wb") as stderr:
        proc = subprocess.Popen(
            [str(python), str(AGENT_SCRIPT)], stdout=stdout, stderr=stderr, env=env, cwd=workdir
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if "BENCH_READY" in out.read_text():
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"{kind}: agent did not start; see {workdir / 'agent.log'}")


def drive(spec: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench._turn_driver", json.dumps(spec)],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"turn driver failed:\n{done.stderr[-2000:]}")
    row: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return row


def one_run(kind: str, python: Path, args: argparse.Namespace, rep: int) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"band-agent-turn-{kind}-"))
    world = asyncio.run(build_world(workdir / "data", args.rooms))
    port = free_port()
    timeline = workdir / "timeline" if args.timeline else None
    preamble = ""
    if timeline is not None:
        timeline.mkdir()
        preamble = _timeline.server_preamble(timeline)
    if args.calls:
        preamble += _turn_calls.server_preamble(workdir / "server-calls.prof")
    # This checkout's server and SDK (a worktree measures its own code, not the installed one).
    server = serve_platform(workdir / "data", port, pythonpath=ROOT / "src", preamble=preamble)
    agent = None
    try:
        trees = {"before": Path(args.before or ".").resolve() / "src", "ours": ROOT / "src"}
        src = trees.get(kind)  # band-sdk's agent must not see our ``band``
        calls = workdir / "calls.prof" if args.calls else None
        agent = start_agent(kind, python, world, port, workdir, src, timeline, calls)
        spec: dict[str, Any] = {
            "host": "127.0.0.1",
            "port": port,
            "person_key": world.person.key,
            "agent_id": world.agent.id,
            "agent_handle": world.agent.handle,
            "rooms": world.rooms,
            "connections": 16,
        }
        # Warm-up: one turn per room (each room's first turn hydrates the agent's session).
        warm = drive(dict(spec, rate=25, seconds=len(world.rooms) / 25, token_prefix="warm-"))
        if warm["replied"] < warm["sent"]:
            print(f"  {kind}: warm-up {warm['replied']}/{warm['sent']} replies", flush=True)
        time.sleep(1.0)
        server_ps, agent_ps = psutil.Process(server.pid), psutil.Process(agent.pid)
        spies = profilers(args.profile, f"{kind}-r{rep}", server.pid, agent.pid)
        if calls is not None:  # both profile from here on
            agent.send_signal(signal.SIGUSR1)
            server.send_signal(signal.SIGUSR1)
        s0, a0 = cpu_seconds(server_ps), cpu_seconds(agent_ps)
        measured = dict(spec, rate=args.rate, seconds=args.seconds, token_prefix=f"r{rep}-")
        if timeline is not None:
            measured["timeline"] = str(timeline)
        row = drive(measured)
        for spy in spies:
            spy.send_signal(signal.SIGINT)
            spy.wait(timeout=30)
        turns = max(1, row["replied"])
        row["server_cpu_ms_per_turn"] = round((cpu_seconds(server_ps) - s0) * 1000 / turns, 3)
        row["agent_cpu_ms_per_turn"] = round((cpu_seconds(agent_ps) - a0) * 1000 / turns, 3)
    finally:
        for proc in (agent, server):
            if proc is not None:
                stop(proc)
    if timeline is not None:
        row["timeline"] = _timeline.stages(timeline)
    if calls is not None:
        row["calls"] = {
            "agent": _turn_calls.summary(calls, row["replied"]),
            "server": _turn_calls.summary(workdir / "server-calls.prof", row["replied"]),
        }
    return row


def stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (its exit writes its last stamps), then SIGKILL if it lingers."""
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def profilers(folder: str | None, label: str, *pids: int) -> list[subprocess.Popen[bytes]]:
    """``--profile DIR``: py-spy (raw collapsed stacks) on the server and the agent."""
    if not folder:
        return []
    Path(folder).mkdir(parents=True, exist_ok=True)
    spy = Path(sys.executable).with_name("py-spy")
    spies = []
    for role, pid in zip(("server", "agent"), pids, strict=True):
        out = Path(folder) / f"{label}-{role}.txt"
        cmd = [str(spy), "record", "--pid", str(pid), "-f", "raw", "-r", "250", "--nonblocking"]
        spies.append(
            subprocess.Popen(
                [*cmd, "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )
        )
    time.sleep(0.5)  # let py-spy attach
    return spies


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    keys = (
        "turn_p50_ms",
        "turn_p90_ms",
        "turn_p99_ms",
        "from_start_p50_ms",
        "from_start_p99_ms",
        "timer_late_p50_ms",
        "server_cpu_ms_per_turn",
        "agent_cpu_ms_per_turn",
    )
    out: dict[str, Any] = {}
    for k in keys:
        values = [r[k] for r in rows if r.get(k) is not None]
        out[k] = round(statistics.median(values), 2) if values else None
    out["replied"] = sum(r["replied"] for r in rows)
    out["sent"] = sum(r["sent"] for r in rows)
    out["errors"] = sum(r["errors"] for r in rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rooms", type=int, default=50, help="rooms the mentions go round")
    parser.add_argument("--rate", type=float, default=100.0, help="mentions per second in all")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of load per run")
    parser.add_argument("--repeat", type=int, default=2, help="runs per agent, order alternated")
    parser.add_argument(
        "--agents",
        default="floor,ours,band-sdk",
        help="comma-separated: floor, floor-sdk, ours, band-sdk",
    )
    parser.add_argument("--profile", metavar="DIR", help="py-spy stacks of server and agent")
    parser.add_argument(
        "--timeline",
        action="store_true",
        help="stamp each step of a turn in person, server and agent; print where time goes",
    )
    parser.add_argument(
        "--calls",
        action="store_true",
        help="print the agent's and the server's Python calls and distinct functions a turn",
    )
    parser.add_argument(
        "--before",
        metavar="TREE",
        help="also run agent 'before': our SDK from TREE/src (e.g. a git archive of main)",
    )
    args = parser.parse_args()
    kinds = args.agents.split(",")
    if args.before and "before" not in kinds:
        kinds.append("before")
    pythons = {k: Path(sys.executable) for k in ("floor", "floor-sdk", "ours", "before")}
    if "band-sdk" in kinds:
        pythons["band-sdk"] = ensure_official_python()
    load = os.getloadavg()[0]
    print(f"load average before: {load:.2f} on {os.cpu_count()} cores", flush=True)
    fsync = fsync_probe(Path(tempfile.gettempdir()))
    print(f"one durable SQLite commit on this disk now: {fsync}", flush=True)
    # The run's commits come one after an idle gap (a mention every 1/rate s), not back to back.
    idle = fsync_probe(Path(tempfile.gettempdir()), commits=100, gap=1 / args.rate)
    fsync.update({f"after_idle_{k}": v for k, v in idle.items()})
    print(f"the same, each after {1000 / args.rate:g} ms idle: {idle}", flush=True)
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    for rep in range(args.repeat):
        for kind in kinds if rep % 2 == 0 else kinds[::-1]:
            print(f"  run {rep + 1}/{args.repeat}: {kind}", flush=True)
            row = one_run(kind, pythons[kind], args, rep)
            print(f"    {row}", flush=True)
            runs[kind].append(row)
    summary = {k: summarise(rows) for k, rows in runs.items()}
    report(args, summary, runs, load, fsync)


def share_split(summary: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Ours minus the floor agent (from the mention's start, p50), split by ``floor-sdk``."""
    values = {
        k: summary[k]["from_start_p50_ms"]
        for k in ("floor", "floor-sdk", "ours")
        if k in summary and summary[k]["from_start_p50_ms"] is not None
    }
    if len(values) < 3:
        return {}
    return {
        "sdk_requests_cost_platform_p50_ms": round(values["floor-sdk"] - values["floor"], 2),
        "sdk_code_costs_p50_ms": round(values["ours"] - values["floor-sdk"], 2),
    }


def report(
    args: argparse.Namespace,
    summary: dict[str, dict[str, Any]],
    runs: dict[str, list[dict[str, Any]]],
    load: float,
    fsync: dict[str, float],
) -> None:
    print(
        f"\nagent turn, {args.rooms} rooms at {args.rate:g} mentions/s, medians of"
        f" {args.repeat} runs of {args.seconds:g} s; load average before {load:.2f}"
    )
    header = f"{'agent':>9} | {'p50 ms':>7} {'p90 ms':>7} {'p99 ms':>7} | "
    header += f"{'from start p50':>14} {'p99':>6} {'timer late':>10} | "
    header += f"{'server cpu/turn':>15} {'agent cpu/turn':>14} | {'replied':>11} {'errors':>6}"
    print(header)
    print("-" * len(header))
    for kind, s in summary.items():
        print(
            f"{kind:>9} | {s['turn_p50_ms']!s:>7} {s['turn_p90_ms']!s:>7} {s['turn_p99_ms']!s:>7}"
            f" | {s['from_start_p50_ms']!s:>14} {s['from_start_p99_ms']!s:>6}"
            f" {s['timer_late_p50_ms']!s:>10}"
            f" | {s['server_cpu_ms_per_turn']!s:>15} {s['agent_cpu_ms_per_turn']!s:>14} | "
            f"{s['replied']:>5}/{s['sent']:<5} {s['errors']:>6}"
        )
    verdicts: dict[str, Any] = {}
    ours, theirs = summary.get("ours"), summary.get("band-sdk")
    if ours and ours["turn_p50_ms"] is not None and ours["turn_p99_ms"] is not None:
        verdicts["ours_p50_at_most_3ms"] = ours["turn_p50_ms"] <= TARGET_P50_MS
        verdicts["ours_p99_at_most_10ms"] = ours["turn_p99_ms"] <= TARGET_P99_MS
        verdicts["ours_every_turn_replied"] = ours["replied"] == ours["sent"]
    if ours and ours["from_start_p50_ms"] is not None and ours["from_start_p99_ms"] is not None:
        # Target 3 names the platform's and the SDK's share: from the mention's start.
        verdicts["ours_share_p50_at_most_3ms"] = ours["from_start_p50_ms"] <= TARGET_P50_MS
        verdicts["ours_share_p99_at_most_10ms"] = ours["from_start_p99_ms"] <= TARGET_P99_MS
    if ours and theirs and theirs["turn_p50_ms"] and theirs["turn_p99_ms"]:
        verdicts["ours_p50_at_or_below_band_sdk"] = ours["turn_p50_ms"] <= theirs["turn_p50_ms"]
        verdicts["ours_p99_at_or_below_band_sdk"] = ours["turn_p99_ms"] <= theirs["turn_p99_ms"]
    floor = summary.get("floor")
    if ours and floor and floor["turn_p50_ms"] and ours["turn_p50_ms"]:
        verdicts["ours_p50_x_floor"] = round(ours["turn_p50_ms"] / floor["turn_p50_ms"], 2)
    verdicts.update(share_split(summary))
    for name, verdict in verdicts.items():
        print(f"  {name}: {verdict}")
    if args.timeline:
        timelines = {k: _timeline.merged([r["timeline"] for r in rows]) for k, rows in runs.items()}
        _timeline.print_table(timelines)
        for kind, timeline in timelines.items():
            summary[kind]["timeline"] = timeline
    if args.calls:
        for kind, rows in runs.items():
            summary[kind]["calls"] = rows[-1].get("calls", {})
        _turn_calls.print_table({kind: summary[kind]["calls"] for kind in runs})
    write_results(
        RESULTS / "agent_turn.json",
        load,
        fsync,
        args,
        summary=summary,
        verdicts=verdicts,
        runs=runs,
    )


if __name__ == "__main__":
    main()
