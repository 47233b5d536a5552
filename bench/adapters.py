"""Adapter overhead per turn: our SDK's Agent with each shipped adapter, one fake model.

The baseline row is the seed's documented adapter (tests/e2e/seed/chat_adapter.py, run by
bench/_sdk_agent.py exactly as bench/sdk_overhead.py runs it): the SDK's own cost with the
thinnest adapter. Every other row is one of ``band.adapters`` built by bench/_adapter_agent.py
against the same zero-latency fake model endpoint (``band.testing.serve_fake_models``, in a
thread of this process, default policy: answer a mention with ``band_send_message``); Parlant
answers from ``FakeNLPService`` in its own venv (``.venvs/parlant``, built by
scripts/test-adapter parlant; never built here), LangGraph and Pydantic AI from ``.venvs/langgraph``
and ``.venvs/pydantic-ai`` against the fake OpenAI endpoint. Adapters whose venv, class or
framework is missing are listed as skipped with the reason.

Each adapter gets a fresh counted platform subprocess and data folder, and its own agent
subprocess; the adapters run one after the other, never at once. Measured per adapter (all
through ``bench.sdk_overhead.Run``):

- start-up: process spawn to ``Agent.start()`` returned, then one warm-up turn;
- 1 room: N mentions posted into one warm room (the agent takes one room's turns one after
  another): turns/s, agent CPU (utime+stime) ms per turn, REST calls and model calls per turn;
- R rooms: M mentions round-robin over R fresh rooms (turns of different rooms may overlap;
  includes each room's first-turn hydration), same measures.

    .venv/bin/python -m bench.adapters [--turns 20] [--multi-turns 20] [--rooms 10]
        [--adapters seed,openai,anthropic,parlant,langgraph,pydantic-ai] [--parlant-turns 6]

``--adapters`` also knows openai-stream and anthropic-stream, and the framework rows of
bench/_official_frameworks.py: crewai, crewai-flow, agno, strands (ours, from
``.venvs/<name>``) each with its ``<name>@band-sdk`` twin (band-sdk 6.0.1 with that extra,
same script, same run), compared in a second table; likewise the rows of
bench/_official_google.py: gemini, google-adk (google-adk 1.19, where band-sdk's adapter
works) and google-adk-latest (ours on the current google-adk, no twin). Prints the tables
and writes bench/results/adapters.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.compat.compat_harness import clean_env

from band.testing import FakeModel, FakeModelServer, serve_fake_models
from bench._adapter_agent import BUILDERS
from bench._official_frameworks import FRAMEWORK_SPECS, print_versus, versus
from bench._official_google import GOOGLE_SPECS
from bench.sdk_overhead import AGENT_SCRIPT, RESULTS, ROOT, Run, build_world, progress, ratio

ADAPTER_SCRIPT = Path(__file__).with_name("_adapter_agent.py")
PROJECT_PYTHON = Path(sys.executable)
VENVS = ROOT / ".venvs"
DEFAULT_ADAPTERS = "seed,openai,anthropic,parlant,langgraph,pydantic-ai"


@dataclass(frozen=True)
class Spec:
    """One row: which interpreter runs which agent script with which adapter."""

    label: str
    venv: str | None  # a folder under .venvs/, or None for the project venv
    adapter_class: str | None  # the ``band.adapters`` name the row needs (None: the seed's)
    frameworks: tuple[str, ...] = ()  # modules the adapter's venv must import
    ready_within: float = 60.0

    @property
    def python(self) -> Path:
        return VENVS / self.venv / "bin" / "python" if self.venv else PROJECT_PYTHON

    @property
    def script(self) -> Path:
        return AGENT_SCRIPT if self.adapter_class is None else ADAPTER_SCRIPT


SPECS = {
    s.label: s
    for s in (
        Spec("seed", None, None),
        Spec("openai", None, "OpenAIChatAdapter", ("openai",)),
        Spec("openai-stream", None, "OpenAIChatAdapter", ("openai",)),
        Spec("anthropic", None, "AnthropicAdapter", ("anthropic",)),
        Spec("anthropic-stream", None, "AnthropicAdapter", ("anthropic",)),
        Spec("parlant", "parlant", "ParlantAdapter", ("parlant",), ready_within=180.0),
        Spec("langgraph", "langgraph", "LangGraphAdapter", ("langgraph", "langchain_openai")),
        Spec("pydantic-ai", "pydantic-ai", "PydanticAIAdapter", ("pydantic_ai",)),
    )
}


SPECS.update(FRAMEWORK_SPECS)  # same attributes as Spec, their own venvs and script
SPECS.update(GOOGLE_SPECS)


def unavailable(spec: Spec) -> str | None:
    """Why this row cannot run here, or None when it can."""
    if not spec.python.exists():
        return f"venv not built ({spec.python.parent.parent.relative_to(ROOT)})"
    if spec.adapter_class is None:
        return None
    probe = (
        "import importlib, band.adapters as a;"
        f"getattr(a, {spec.adapter_class!r});"
        f"[importlib.import_module(m) for m in {list(spec.frameworks)!r}]"
    )
    env = clean_env(PARLANT_HOME=tempfile.mkdtemp(prefix="band-bench-probe-"))
    found = subprocess.run(
        [str(spec.python), "-c", probe], capture_output=True, text=True, env=env, cwd=str(ROOT)
    )
    if found.returncode != 0:
        last = (found.stderr.strip().splitlines() or ["?"])[-1]
        return f"{spec.venv or '.venv'}: {last}"
    if spec.label not in BUILDERS:
        return f"no builder for {spec.label} in bench/_adapter_agent.py"
    return None


async def bench_adapter(
    spec: Spec, fake: FakeModel, server: FakeModelServer, args: argparse.Namespace
) -> dict[str, Any]:
    turns = args.parlant_turns if spec.label == "parlant" else args.turns
    multi = args.parlant_turns if spec.label == "parlant" else args.multi_turns
    workdir = Path(tempfile.mkdtemp(prefix=f"band-bench-adapters-{spec.label.replace('@', '-')}-"))
    world = await build_world(workdir / "data", args.rooms)
    run = Run(spec.label, spec.python, workdir, args, script=spec.script)
    loopback = "127.0.0.1,localhost"
    try:
        run.start_server(workdir / "data")
        startup = await run.start_agent(
            world,
            server.openai_base_url,
            within=spec.ready_within,
            BENCH_ADAPTER=spec.label,
            ANTHROPIC_BASE_URL=server.anthropic_base_url,
            GOOGLE_GEMINI_BASE_URL=server.gemini_base_url,
            GOOGLE_API_KEY="fake",
            PARLANT_HOME=str(workdir / "parlant-data"),
            NO_PROXY=loopback,
            no_proxy=loopback,
        )
        progress(f"{spec.label}: agent ready in {startup:.2f}s ({spec.python})")
        async with (
            httpx.AsyncClient(
                base_url=run.base, headers={"X-API-Key": world.person.key}, timeout=30
            ) as human,
            httpx.AsyncClient(base_url=run.base, timeout=30) as counter,
        ):
            warm = await run.warm_up(human, counter, world)
            if not warm["complete"]:
                raise RuntimeError(f"no reply to the warm-up turn; see {workdir / 'agent.log'}")
            progress(f"{spec.label}: warm-up turn in {warm['seconds']}s")
            # As bench.sdk_overhead: our SDK joins and drains its rooms after start() returned
            # (band-sdk before), which must not count as the 1-room phase's turns.
            progress(f"{spec.label}: start-up work settled after {await run.settle():.2f}s")
            phases = {}
            for key, rooms, n, what in (
                ("one_room", [world.warm_room], turns, "1 room"),
                ("many_rooms", world.rooms, multi, f"{args.rooms} rooms"),
            ):
                calls0 = len(fake.requests)
                phase = await run.turns(human, counter, world, rooms, n, what)
                phase["model_calls_per_turn"] = round(
                    (len(fake.requests) - calls0) / max(phase["replied"], 1), 2
                )
                phases[key] = phase
                progress(
                    f"{spec.label} {what}: {phase['replied']}/{n} turns in {phase['seconds']}s,"
                    f" {phase['turns_per_s']} turns/s, {phase['cpu_ms_per_turn']} CPU ms/turn"
                )
            assert run.ps is not None
            rss = run.ps.memory_info().rss
    finally:
        run.stop()
    return {
        "adapter": spec.label,
        "python": str(spec.python),
        "startup_s": round(startup, 3),
        "rss_mib_at_end": round(rss / 2**20, 1),
        "warmup": warm,
        **phases,
        "workdir": str(workdir),
    }


COLUMNS = (
    ("adapter", 16),
    ("start s", 7),
    ("1rm t/s", 8),
    ("1rm CPU ms", 10),
    ("x seed", 6),
    ("{R}rm t/s", 8),
    ("{R}rm CPU ms", 11),
    ("x seed", 6),
    ("REST/t", 6),
    ("model/t", 7),
    ("srv CPU ms", 10),
    ("RSS MiB", 7),
)


def print_table(
    runs: dict[str, dict[str, Any]], skipped: dict[str, str], rooms: int
) -> list[dict[str, Any]]:
    heads = [(name.replace("{R}", str(rooms)), width) for name, width in COLUMNS]
    print("\n" + " | ".join(f"{h:>{w}}" if i else f"{h:<{w}}" for i, (h, w) in enumerate(heads)))
    print("-" * (sum(w for _, w in heads) + 3 * (len(heads) - 1)))
    base = runs.get("seed")
    rows = []
    for label, r in runs.items():
        one, many = r["one_room"], r["many_rooms"]
        row = {
            "adapter": label,
            "startup_s": r["startup_s"],
            "one_room_turns_per_s": one["turns_per_s"],
            "one_room_cpu_ms_per_turn": one["cpu_ms_per_turn"],
            "one_room_cpu_vs_seed": None,
            "many_rooms_turns_per_s": many["turns_per_s"],
            "many_rooms_cpu_ms_per_turn": many["cpu_ms_per_turn"],
            "many_rooms_cpu_vs_seed": None,
            "rest_calls_per_turn": one["rest_calls_per_turn"],
            "model_calls_per_turn": one["model_calls_per_turn"],
            "server_cpu_ms_per_turn": one["server_cpu_ms_per_turn"],
            "rss_mib_at_end": r["rss_mib_at_end"],
            "complete": one["complete"] and many["complete"],
        }
        if base is not None:
            for phase in ("one_room", "many_rooms"):
                x = ratio(r[phase]["cpu_ms_per_turn"], base[phase]["cpu_ms_per_turn"])
                row[f"{phase}_cpu_vs_seed"] = None if x == "n/a" else float(x)
        cells = [label if row["complete"] else f"{label}*"]
        cells += [
            "n/a" if v is None else str(v)
            for k, v in row.items()
            if k not in ("adapter", "complete")
        ]
        print(
            " | ".join(
                f"{c:>{w}}" if i else f"{c:<{w}}"
                for i, (c, (_, w)) in enumerate(zip(cells, heads, strict=True))
            )
        )
        rows.append(row)
    for label, why in skipped.items():
        print(f"{label:<16} | skipped: {why}")
        rows.append({"adapter": label, "skipped": why})
    print(
        "\nt/s: turns per second; CPU ms: agent process utime+stime per turn; x seed: CPU"
        " relative to the seed adapter;\nREST/t, model/t, srv CPU ms: per turn, 1-room phase;"
        " *: not every turn finished in time."
    )
    return rows


async def amain(args: argparse.Namespace) -> None:
    wanted = [a.strip() for a in args.adapters.split(",") if a.strip()]
    unknown = [a for a in wanted if a not in SPECS]
    if unknown:
        raise SystemExit(f"unknown adapter(s) {unknown}; known: {', '.join(SPECS)}")
    skipped: dict[str, str] = {}
    specs = []
    for label in wanted:
        spec_of = SPECS[label]
        why = (
            spec_of.unavailable(progress)
            if hasattr(spec_of, "unavailable")
            else unavailable(spec_of)
        )
        if why:
            progress(f"{label}: skipped: {why}")
            skipped[label] = why
        else:
            specs.append(SPECS[label])
    runs: dict[str, dict[str, Any]] = {}
    fake = FakeModel()
    with serve_fake_models(fake) as server:
        progress(f"fake model endpoint at {server.url} (zero latency, default policy)")
        for spec in specs:
            print(f"{spec.label}:", flush=True)
            try:
                runs[spec.label] = await bench_adapter(spec, fake, server, args)
            except RuntimeError as exc:
                progress(f"{spec.label}: failed: {exc}")
                skipped[spec.label] = f"failed: {exc}"
    rows = print_table(runs, skipped, args.rooms)
    pairs = versus(runs)
    print_versus(pairs, args.rooms)
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "adapters.json"
    payload = {
        "config": {**vars(args), "cpus": os.cpu_count()},
        "rows": rows,
        "skipped": skipped,
        "versus_band_sdk": pairs,
        "runs": runs,
    }
    out.write_text(json.dumps(payload, indent=2))
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="mentions in the 1-room phase")
    parser.add_argument(
        "--multi-turns", type=int, default=20, help="mentions in the many-room phase"
    )
    parser.add_argument("--rooms", type=int, default=10, help="rooms in the many-room phase")
    parser.add_argument(
        "--parlant-turns",
        type=int,
        default=6,
        help="mentions per phase for Parlant (its turns are far slower)",
    )
    parser.add_argument(
        "--adapters", default=DEFAULT_ADAPTERS, help=f"comma-separated, of: {', '.join(SPECS)}"
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds to wait per phase")
    parser.add_argument(
        "--logging",
        choices=("sdk", "warning"),
        default="sdk",
        help="agent logging: the SDK's configure_logging() (as the seed) or plain WARNING",
    )
    # Read by bench.sdk_overhead.Run; py-spy profiling is that bench's feature.
    parser.set_defaults(profile=None)
    asyncio.run(amain(parser.parse_args()))


if __name__ == "__main__":
    main()
