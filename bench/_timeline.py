"""Where a turn's time goes: stamps at named steps in the person, the server and the agent.

Bench-only (``bench.agent_turn --timeline``). Each process of a run stamps ``perf_counter``
(CLOCK_MONOTONIC on Linux: one clock for every process of the machine) at named steps into
its own file of the run's folder: the person (``bench._turn_driver``: the mention's start, the
reply's arrival), the server (probes wrapped around a few of its methods: a request's bytes
in, its route reached, the commit begun and done, bytes written to a socket) and the agent
(ours: the push's frame, the turn, the tool call, the request's bytes; the raw agents: the
frame and the request). :func:`stages` merges the files and, for each turn no other turn
overlapped, takes the time between its consecutive steps; the medians say where a turn's
time goes. A probe costs a few microseconds, so a probed run is a little slower than a plain one.
"""

from __future__ import annotations

import atexit
import importlib
import itertools
import os
import statistics
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV = "BENCH_TIMELINE"
"""The folder a process stamps into (unset: stamping is off)."""

SERVER_PROBES = {
    "band_server.http_protocol:JoinedHttpProtocol.data_received": "http in",
    "band_server.http.fast_lane:FastLane.__call__": "routed",
    "band_server.store.group_batch:BatchWriter._commit_here": "commit",
    "band_server.store.group_batch:BatchWriter._commit_off": "commit",
    "band_server.store.group_batch:BatchWriter._committed": "committed",
    "band_server.pass_transport:PassTransport.write": "written",
}
AGENT_PROBES = {
    "band.platform.socket:PhoenixSocket._dispatch": "frame",
    "band.platform.link:BandLink._queue_push": "queued",
    "band.runtime.room_execution:ExecutionContext._handle": "room",
    "band.runtime.turn_runner:TurnRunner.run": "turn",
    "band.runtime.adapter_turn:AdapterTurn.__call__": "adapter",
    "band.runtime.agent:Agent._make_tools": "tools",
    "band.core.simple_adapter:SimpleAdapter.on_event": "on_event",
    "band.runtime.tools.dispatch:ToolDispatch.execute_tool_call": "tool",
    "band.platform.rest:BandRestClient.post_message": "post",
    "band.platform._stream_wire:StreamWire._exchange": "request",
}

# A turn's steps in order (step, who stamps it, its name in the table); a step an agent has
# no probe for is left out of its turns.
STEPS = (
    ("start", "person", "person: mention sent"),
    ("http in", "server", "server: mention in"),
    ("routed", "server", "server: mention routed"),
    ("commit", "server", "server: mention's commit"),
    ("committed", "server", "server: mention committed"),
    ("written", "server", "server: push written"),
    ("frame", "agent", "agent: push's frame"),
    ("queued", "agent", "agent: queued"),
    ("room", "agent", "agent: room"),
    ("turn", "agent", "agent: turn"),
    ("adapter", "agent", "agent: adapter"),
    ("tools", "agent", "agent: tools"),
    ("on_event", "agent", "agent: on_event"),
    ("tool", "agent", "agent: tool call"),
    ("post", "agent", "agent: post"),
    ("request", "agent", "agent: reply sent"),
    ("http in", "server", "server: reply in"),
    ("routed", "server", "server: reply routed"),
    ("commit", "server", "server: reply's commit"),
    ("committed", "server", "server: reply committed"),
    ("written", "server", "server: push written"),
    ("reply", "person", "person: reply in"),
)

_buffer: list[str] = []
_file: Path | None = None


def _flush() -> None:
    if _file is not None and _buffer:
        with _file.open("a") as out:
            out.writelines(_buffer)
        _buffer.clear()


def activate(role: str, folder: Path | None = None) -> bool:
    """Stamp into ``<folder>/<role>.<pid>`` from now on (``folder``: else ``$BENCH_TIMELINE``);
    False when neither is given (then :func:`stamp` does nothing)."""
    global _file
    where = folder or os.environ.get(ENV)
    if not where:
        return False
    _file = Path(where) / f"{role}.{os.getpid()}"
    atexit.register(_flush)
    return True


def stamp(step: str, tag: str = "", at: float | None = None) -> None:
    """One step now (or ``at``, a ``perf_counter`` reading), with an optional ``tag``."""
    if _file is None:
        return
    _buffer.append(f"{time.perf_counter() if at is None else at:.6f}\t{step}\t{tag}\n")
    if len(_buffer) >= 64:  # a killed process loses at most the last few turns
        _flush()


def _wrapped(original: Callable[..., Any], step: str) -> Callable[..., Any]:
    def probe(*args: Any, **kwargs: Any) -> Any:
        stamp(step)
        return original(*args, **kwargs)  # a coroutine function's call is stamped as made

    return probe


def install(role: str, probes: dict[str, str], folder: Path | None = None) -> None:
    """Activate stamping (as :func:`activate`) and wrap each ``module:Class.method`` so each
    call stamps its step."""
    if not activate(role, folder):
        return
    for target, step in probes.items():
        module_name, _, qualified = target.partition(":")
        class_name, _, method = qualified.partition(".")
        owner = getattr(importlib.import_module(module_name), class_name)
        setattr(owner, method, _wrapped(getattr(owner, method), step))


def _read(folder: Path) -> list[tuple[float, str, str]]:
    events: list[tuple[float, str, str]] = []
    for path in folder.iterdir():
        for line in path.read_text().splitlines():
            at, step, tag = line.split("\t")
            events.append((float(at), step, tag))
    events.sort()
    return events


def _turn_steps(window: list[tuple[float, str, str]]) -> dict[int, float] | None:
    """The time of each step of :data:`STEPS` found in order in one turn's events (a step with
    no stamp at all in the window is skipped, as an agent without that probe)."""
    found: dict[int, float] = {0: window[0][0]}
    at = 1
    for index in range(1, len(STEPS) - 1):
        step = STEPS[index][0]
        for j in range(at, len(window)):
            if window[j][1] == step:
                found[index] = window[j][0]
                at = j + 1
                break
    found[len(STEPS) - 1] = window[-1][0]
    server_steps = [i for i, (_, side, _) in enumerate(STEPS) if side == "server"]
    return found if all(i in found for i in server_steps) else None


def stages(folder: Path) -> dict[str, Any]:
    """Median milliseconds between consecutive steps (named ``"a -> b"``, in turn order) over
    the turns no other turn overlapped and that have the run's usual steps (a process killed at
    the end loses its last stamps), and how many such turns there were."""
    events = _read(folder)
    starts = {tag: i for i, (_, step, tag) in enumerate(events) if step == "start"}
    turns: list[dict[int, float]] = []
    for i, (_, step, tag) in enumerate(events):
        if step != "reply" or tag not in starts:
            continue
        window = events[starts[tag] : i + 1]
        if any(s in ("start", "reply") for _, s, _ in window[1:-1]):
            continue  # another turn's mention or reply fell inside: not this turn's alone
        found = _turn_steps(window)
        if found is not None:
            turns.append(found)
    usual = Counter(tuple(found) for found in turns).most_common(1)
    kept = [found for found in turns if usual and tuple(found) == usual[0][0]]
    spans: dict[tuple[int, int], list[float]] = {}
    for found in kept:
        marks = sorted(found.items())
        for (a, t_a), (b, t_b) in itertools.pairwise(marks):
            spans.setdefault((a, b), []).append((t_b - t_a) * 1000)
    table = {
        f"{STEPS[a][2]} -> {STEPS[b][2]}": round(statistics.median(values), 3)
        for (a, b), values in sorted(spans.items())
    }
    return {"turns": len(kept), "stages_ms": table}


def server_preamble(folder: Path) -> str:
    """Statements for ``bench._platform.serve_platform(preamble=...)``: the server's probes."""
    root = str(Path(__file__).resolve().parent.parent)
    return (
        f"import sys, pathlib; sys.path.insert(0, {root!r}); from bench import _timeline;"
        f" _timeline.install('server', _timeline.SERVER_PROBES, pathlib.Path({str(folder)!r}));"
    )


def merged(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Several runs' :func:`stages` as one: each stage's median of the runs' medians."""
    by_stage: dict[str, list[float]] = {}
    for row in rows:
        for stage, value in row["stages_ms"].items():
            by_stage.setdefault(stage, []).append(value)
    return {
        "turns": sum(row["turns"] for row in rows),
        "stages_ms": {k: round(statistics.median(v), 3) for k, v in by_stage.items()},
    }


def print_table(per_agent: dict[str, dict[str, Any]]) -> None:
    """One row a stage, one column an agent (ms, medians); the last row sums them."""
    order: list[str] = []
    for timeline in per_agent.values():
        order += [stage for stage in timeline["stages_ms"] if stage not in order]
    width = max(len(stage) for stage in order) if order else 10
    print("\nwhere a turn's time goes (ms, medians of turns alone in their window)")
    print(f"{'stage':<{width}} | " + " ".join(f"{kind:>9}" for kind in per_agent))
    for stage in order:
        cells = (per_agent[kind]["stages_ms"].get(stage) for kind in per_agent)
        print(f"{stage:<{width}} | " + " ".join(f"{'' if c is None else c:>9}" for c in cells))
    totals = (round(sum(t["stages_ms"].values()), 2) for t in per_agent.values())
    print(f"{'sum':<{width}} | " + " ".join(f"{t:>9}" for t in totals))
    print(f"{'turns':<{width}} | " + " ".join(f"{t['turns']:>9}" for t in per_agent.values()))
