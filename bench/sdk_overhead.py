"""SDK overhead per turn: our SDK beside the official band-sdk 6.0.1, same adapter, same server.

Each SDK runs the documented seed adapter (tests/e2e/seed/chat_adapter.py, unchanged) in its
own agent process (ours: the project venv; band-sdk: tests/compat/.venv) against our platform
(a fresh subprocess and data folder per SDK, with a request counter in front) and a
zero-latency fake OpenAI endpoint (``band.testing``, in a thread of this process, default
policy: answer a mention by calling ``band_send_message``). The SDKs run one after the other,
never at once. Measured per SDK:

- start-up: process spawn to ``Agent.start()`` returned; RSS after one warm-up turn;
- 1 room: N mentions posted at once into the (warm) room, wait for N replied+acked turns: CPU
  (agent utime+stime) per turn, REST calls per turn from the agent's key, turns/s;
- many rooms: M mentions spread round-robin over R fresh rooms (includes each room's first-turn
  hydration), same measures.

    .venv/bin/python -m bench.sdk_overhead [--turns 40] [--multi-turns 100] [--rooms 50]
        [--sdk both|ours|band-sdk] [--repeat 3] [--profile DIR]   (DIR: py-spy stacks)
        [--ours-src TREE]   (also "ours@TREE": server and SDK from TREE/src, e.g. a
                             `git archive` export of main, alternating with the others)

Prints a table and writes bench/results/sdk_overhead.json.
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
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import psutil  # type: ignore[import-untyped]
from tests.compat.compat_harness import (
    AgentCreds,
    Person,
    Seeder,
    clean_env,
    ensure_compat_venv,
    free_port,
    seed,
)

from band.testing import serve_fake_models

ROOT = Path(__file__).resolve().parent.parent
RESULTS = Path(__file__).parent / "results"
SEED_DIR = ROOT / "tests" / "e2e" / "seed"
AGENT_SCRIPT = Path(__file__).with_name("_sdk_agent.py")
COMPAT_VENV = ROOT / "tests" / "compat" / ".venv"
OPENAI_REQUIREMENT = "openai==3.22.1"
REPLY_SUFFIX = "/messages"


def progress(line: str) -> None:
    print(f"  {line}", flush=True)


@dataclass
class World:
    person: Person
    agent: AgentCreds
    warm_room: str
    rooms: list[str]


def ensure_official_python() -> Path:
    """The compat venv's interpreter, with band-sdk 6.0.1 and the openai client in it."""
    python = ensure_compat_venv(progress, COMPAT_VENV)
    probe = subprocess.run(
        [str(python), "-c", "import openai"], capture_output=True, env=clean_env()
    )
    if probe.returncode != 0:
        progress(f"compat venv: pip install {OPENAI_REQUIREMENT}")
        subprocess.run(
            [
                str(python),
                "-m",
                "pip",
                "install",
                "-q",
                "--disable-pip-version-check",
                OPENAI_REQUIREMENT,
            ],
            check=True,
            env=clean_env(),
        )
    return python


async def build_world(data_dir: Path, rooms: int) -> World:
    async def build(s: Seeder) -> World:
        person = await s.person("bench", "Bench")
        agent = await s.agent(person, "Target")
        warm = await s.room(person, "warm", [agent])
        many = [await s.room(person, f"room {i}", [agent]) for i in range(rooms)]
        return World(person, agent, warm, many)

    return await seed(data_dir, build)


def cpu_seconds(proc: psutil.Process) -> float:
    """utime+stime of the agent process and any live children."""
    total = 0.0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system
    return total


def is_reply(route: str) -> bool:
    method, path, status = route.split(" ")
    return (
        method == "POST"
        and path.startswith("/api/v1/agent/chats/")
        and path.endswith(REPLY_SUFFIX)
        and status.startswith("2")
    )


def is_ack(route: str) -> bool:
    method, path, status = route.split(" ")
    return method == "POST" and path.endswith("/processed") and status.startswith("2")


def finished(counts: Counter[str]) -> int:
    """Turns whose reply was posted and whose delivery was acked (``/processed``)."""
    return min(
        sum(v for k, v in counts.items() if is_reply(k)),
        sum(v for k, v in counts.items() if is_ack(k)),
    )


class Run:
    """One SDK's agent against its own server; every measure taken through this."""

    def __init__(
        self,
        label: str,
        python: Path,
        workdir: Path,
        args: argparse.Namespace,
        script: Path = AGENT_SCRIPT,
        src: Path | None = None,
    ) -> None:
        self.label = label
        # Another source tree's ``src`` first on the path of the server and the agent.
        self.tree_env = {"PYTHONPATH": str(src)} if src is not None else {}
        self.python = python
        self.script = script
        self.workdir = workdir
        self.args = args
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.server: subprocess.Popen[bytes] | None = None
        self.agent: subprocess.Popen[bytes] | None = None
        self.ps: psutil.Process | None = None
        self.server_ps: psutil.Process | None = None

    async def counts(self, client: httpx.AsyncClient, key: str) -> Counter[str]:
        r = await client.get("/__bench/counts")
        r.raise_for_status()
        return Counter(r.json().get(key, {}))

    async def connections(self, client: httpx.AsyncClient, key: str) -> int:
        """TCP connections the agent's requests came over so far (the server's accepts)."""
        r = await client.get("/__bench/connections")
        r.raise_for_status()
        return int(r.json().get(key, 0))

    def start_server(self, data_dir: Path) -> None:
        log = (self.workdir / "server.log").open("wb")
        self.server = subprocess.Popen(
            [sys.executable, "-m", "bench._counted_server", str(data_dir), str(self.port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=clean_env(**self.tree_env),
            cwd=str(ROOT),
        )
        log.close()
        self.server_ps = psutil.Process(self.server.pid)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.server.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(
            f"{self.label}: server did not come up; see {self.workdir / 'server.log'}"
        )

    def _spawn_agent(self, env: dict[str, str], out_path: Path) -> subprocess.Popen[bytes]:
        with out_path.open("wb") as out, (self.workdir / "agent.log").open("wb") as err:
            return subprocess.Popen(
                [str(self.python), str(self.script)],
                stdout=out,
                stderr=err,
                env=env,
                cwd=str(self.workdir),
            )

    async def start_agent(
        self, world: World, openai_base: str, within: float = 60.0, **extra_env: str
    ) -> float:
        """Spawn the agent (``extra_env`` added to its environment); seconds from spawn to
        its BENCH_READY line, waiting at most ``within`` seconds."""
        tmp = self.workdir / "tmp"
        tmp.mkdir(exist_ok=True)
        env = clean_env(
            BENCH_AGENT_ID=world.agent.id,
            BENCH_API_KEY=world.agent.key,
            BENCH_SEED_DIR=str(SEED_DIR),
            BENCH_LOGGING=self.args.logging,
            BAND_WS_URL=f"ws://127.0.0.1:{self.port}/api/v1/socket/websocket",
            BAND_REST_URL=self.base,
            OPENAI_BASE_URL=openai_base,
            OPENAI_API_KEY="fake",
            TMPDIR=str(tmp),
            **self.tree_env,
            **extra_env,
        )
        out_path = self.workdir / "agent.out"
        t0 = time.time()
        self.agent = self._spawn_agent(env, out_path)
        self.ps = psutil.Process(self.agent.pid)
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            for line in out_path.read_text().splitlines():
                if line.startswith("BENCH_READY "):
                    return float(line.split()[1]) - t0
            if self.agent.poll() is not None:
                break
            await asyncio.sleep(0.01)
        raise RuntimeError(f"{self.label}: agent did not start; see {self.workdir / 'agent.log'}")

    async def turns(
        self,
        human: httpx.AsyncClient,
        counter: httpx.AsyncClient,
        world: World,
        rooms: list[str],
        n: int,
        what: str,
    ) -> dict[str, Any]:
        """Post n mentions round-robin over rooms at once; wait for n replied+acked turns."""
        assert self.ps is not None and self.server_ps is not None
        key = world.agent.key
        spies = self.start_profilers(what)
        before = await self.counts(counter, key)
        conns0 = await self.connections(counter, key)
        done0 = finished(before)
        cpu0 = cpu_seconds(self.ps)
        server0 = cpu_seconds(self.server_ps)
        start = time.perf_counter()
        body_mention = [{"id": world.agent.id}]
        for i in range(n):
            room = rooms[i % len(rooms)]
            r = await human.post(
                f"/api/v1/me/chats/{room}/messages",
                json={"message": {"content": f"@Target question {i}?", "mentions": body_mention}},
            )
            r.raise_for_status()
        deadline = time.monotonic() + self.args.timeout
        done = 0
        last_report = time.monotonic()
        while time.monotonic() < deadline:
            now = await self.counts(counter, key)
            done = finished(now) - done0
            if done >= n:
                break
            if time.monotonic() - last_report > 5:
                progress(f"{self.label} {what}: {done}/{n} replies ...")
                last_report = time.monotonic()
            # Coarse on purpose: each probe is a request the server serves during the phase.
            await asyncio.sleep(0.1)
        elapsed = time.perf_counter() - start
        cpu = cpu_seconds(self.ps) - cpu0
        server_cpu = cpu_seconds(self.server_ps) - server0
        self.stop_profilers(spies)
        after = await self.counts(counter, key)
        conns = await self.connections(counter, key) - conns0
        delta = after - before
        calls = sum(delta.values())
        return {
            "turns": n,
            "rooms": len(rooms),
            "replied": done,
            "complete": done >= n,
            "seconds": round(elapsed, 3),
            "turns_per_s": round(done / elapsed, 2) if elapsed else None,
            "cpu_ms_per_turn": round(cpu * 1000 / max(done, 1), 2),
            "server_cpu_ms_per_turn": round(server_cpu * 1000 / max(done, 1), 2),
            "rest_calls_per_turn": round(calls / max(done, 1), 2),
            "new_connections_per_turn": round(conns / max(done, 1), 2),
            "calls": dict(sorted(delta.items())),
        }

    def start_profilers(self, what: str) -> list[subprocess.Popen[bytes]]:
        """``--profile DIR``: py-spy (collapsed stacks) on the agent and the server for a phase."""
        if not self.args.profile or what == "warm-up":
            return []
        assert self.ps is not None and self.server_ps is not None
        out_dir = Path(self.args.profile)
        out_dir.mkdir(parents=True, exist_ok=True)
        spy = Path(sys.executable).with_name("py-spy")
        phase = what.replace(" ", "_")
        spies = []
        for role, pid in (("agent", self.ps.pid), ("server", self.server_ps.pid)):
            out = out_dir / f"{self.label}-{phase}-{role}.txt"
            cmd = [str(spy), "record", "--pid", str(pid), "--format", "raw", "-r", "200"]
            cmd += ["--nonblocking", "-o", str(out)]
            spies.append(
                subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            )
        time.sleep(0.5)  # let py-spy attach before the phase starts
        return spies

    @staticmethod
    def stop_profilers(spies: list[subprocess.Popen[bytes]]) -> None:
        for spy in spies:
            spy.send_signal(signal.SIGINT)
        for spy in spies:
            spy.wait(timeout=30)

    async def settle(self, quiet_ms: float = 10.0, within: float = 10.0) -> float:
        """Wait until the server spends under ``quiet_ms`` of CPU in 0.25 s (at most ``within``
        seconds): an SDK that joins and drains its rooms after ``start()`` returned (ours does;
        band-sdk joins before) would otherwise have that start-up work counted in the 1-room
        phase's turns. Returns the seconds waited."""
        assert self.server_ps is not None
        t0 = time.monotonic()
        while time.monotonic() - t0 < within:
            c0 = cpu_seconds(self.server_ps)
            await asyncio.sleep(0.25)
            if (cpu_seconds(self.server_ps) - c0) * 1000 < quiet_ms:
                break
        return time.monotonic() - t0

    async def warm_up(
        self, human: httpx.AsyncClient, counter: httpx.AsyncClient, world: World
    ) -> dict[str, Any]:
        return await self.turns(human, counter, world, [world.warm_room], 1, "warm-up")

    def stop(self) -> None:
        for proc in (self.agent, self.server):
            if proc is None or proc.poll() is not None:
                continue
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


async def bench_sdk(
    label: str,
    python: Path,
    openai_base: str,
    args: argparse.Namespace,
    env: dict[str, str] | None = None,
    src: Path | None = None,
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"band-sdk-overhead-{label.replace('@', '-')}-"))
    progress(f"{label}: seeding {args.rooms + 1} rooms in {workdir}")
    world = await build_world(workdir / "data", args.rooms)
    run = Run(label, python, workdir, args, src=src)
    try:
        run.start_server(workdir / "data")
        startup = await run.start_agent(world, openai_base, **(env or {}))
        progress(f"{label}: agent ready in {startup:.2f}s")
        async with (
            httpx.AsyncClient(
                base_url=run.base, headers={"X-API-Key": world.person.key}, timeout=30
            ) as human,
            httpx.AsyncClient(base_url=run.base, timeout=30) as counter,
        ):
            warm = await run.warm_up(human, counter, world)
            assert run.ps is not None
            await asyncio.sleep(0.2)
            settled = await run.settle()
            rss = run.ps.memory_info().rss
            progress(
                f"{label}: warm-up turn done; RSS {rss / 2**20:.1f} MiB;"
                f" start-up work settled after {settled:.2f}s more"
            )
            progress(f"{label}: {args.turns} turns in 1 room ...")
            one = await run.turns(human, counter, world, [world.warm_room], args.turns, "1 room")
            progress(f"{label}: 1 room: {one['replied']}/{one['turns']} in {one['seconds']}s")
            progress(f"{label}: {args.multi_turns} turns over {args.rooms} rooms ...")
            many = await run.turns(
                human, counter, world, world.rooms, args.multi_turns, f"{args.rooms} rooms"
            )
            progress(
                f"{label}: {args.rooms} rooms: {many['replied']}/{many['turns']}"
                f" in {many['seconds']}s"
            )
            rss_end = run.ps.memory_info().rss
    finally:
        run.stop()
    return {
        "sdk": label,
        "python": str(python),
        "startup_s": round(startup, 3),
        "rss_mib_after_warmup": round(rss / 2**20, 1),
        "rss_mib_at_end": round(rss_end / 2**20, 1),
        "warmup": warm,
        "one_room": one,
        "many_rooms": many,
        "workdir": str(workdir),
    }


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or not b:
        return "n/a"
    return f"{a / b:.2f}"


def print_table(ours: dict[str, Any], theirs: dict[str, Any], rooms: int) -> list[dict[str, Any]]:
    rows: list[tuple[str, float | None, float | None]] = [
        (
            "CPU ms/turn, 1 room",
            ours["one_room"]["cpu_ms_per_turn"],
            theirs["one_room"]["cpu_ms_per_turn"],
        ),
        (
            f"CPU ms/turn, {rooms} rooms",
            ours["many_rooms"]["cpu_ms_per_turn"],
            theirs["many_rooms"]["cpu_ms_per_turn"],
        ),
        (
            "REST calls/turn, 1 room",
            ours["one_room"]["rest_calls_per_turn"],
            theirs["one_room"]["rest_calls_per_turn"],
        ),
        (
            f"REST calls/turn, {rooms} rooms",
            ours["many_rooms"]["rest_calls_per_turn"],
            theirs["many_rooms"]["rest_calls_per_turn"],
        ),
        (
            "server CPU ms/turn, 1 room",
            ours["one_room"]["server_cpu_ms_per_turn"],
            theirs["one_room"]["server_cpu_ms_per_turn"],
        ),
        (
            f"server CPU ms/turn, {rooms} rooms",
            ours["many_rooms"]["server_cpu_ms_per_turn"],
            theirs["many_rooms"]["server_cpu_ms_per_turn"],
        ),
        (
            "new conns/turn, 1 room",
            ours["one_room"]["new_connections_per_turn"],
            theirs["one_room"]["new_connections_per_turn"],
        ),
        (
            f"new conns/turn, {rooms} rooms",
            ours["many_rooms"]["new_connections_per_turn"],
            theirs["many_rooms"]["new_connections_per_turn"],
        ),
        ("turns/s, 1 room", ours["one_room"]["turns_per_s"], theirs["one_room"]["turns_per_s"]),
        (
            f"turns/s, {rooms} rooms",
            ours["many_rooms"]["turns_per_s"],
            theirs["many_rooms"]["turns_per_s"],
        ),
        ("start-up s", ours["startup_s"], theirs["startup_s"]),
        ("RSS MiB after warm-up", ours["rss_mib_after_warmup"], theirs["rss_mib_after_warmup"]),
        ("RSS MiB at end", ours["rss_mib_at_end"], theirs["rss_mib_at_end"]),
    ]
    print(f"\n{'measure':<30} | {'ours':>9} | {'band-sdk':>9} | {'ours/them':>9}")
    print("-" * 66)
    out = []
    for name, a, b in rows:
        print(f"{name:<30} | {a!s:>9} | {b!s:>9} | {ratio(a, b):>9}")
        out.append(
            {
                "measure": name,
                "ours": a,
                "band_sdk": b,
                "ratio": None if ratio(a, b) == "n/a" else float(ratio(a, b)),
            }
        )
    for label, r in (("ours", ours), ("band-sdk", theirs)):
        print(f"\nREST calls from {label}'s key, 1-room phase ({r['one_room']['turns']} turns):")
        for route, n in sorted(r["one_room"]["calls"].items(), key=lambda kv: -kv[1]):
            print(f"  {n:>5}  {route}")
    return out


async def amain(args: argparse.Namespace) -> None:
    print("band-sdk 6.0.1 interpreter:", flush=True)
    official = ensure_official_python()
    ours_python = Path(sys.executable)
    results: dict[str, dict[str, Any]] = {}
    with serve_fake_models() as fake:
        progress(f"fake OpenAI endpoint at {fake.openai_base_url} (zero latency, default policy)")
        labels = [x for x in ("ours", "band-sdk") if args.sdk in ("all", "both", x)]
        pythons = {"ours": ours_python, "band-sdk": official}
        trees: dict[str, Path] = {}
        if args.ours_src:
            tree = Path(args.ours_src).resolve()
            trees[f"ours@{tree.name}"] = tree / "src"
            pythons[f"ours@{tree.name}"] = ours_python
            labels.append(f"ours@{tree.name}")
        runs: dict[str, list[dict[str, Any]]] = {label: [] for label in labels}
        for rep in range(args.repeat):
            # Alternate the order, so a drift in the machine's load hits every SDK alike.
            for label in labels if rep % 2 == 0 else labels[::-1]:
                print(f"{label} ({pythons[label]}), run {rep + 1}/{args.repeat}:", flush=True)
                runs[label].append(
                    await bench_sdk(
                        label, pythons[label], fake.openai_base_url, args, src=trees.get(label)
                    )
                )
        results = {label: median_run(rs) for label, rs in runs.items()}
    if "ours" not in results or "band-sdk" not in results:
        for label, r in results.items():
            for phase in ("one_room", "many_rooms"):
                shown = {k: v for k, v in r[phase].items() if k != "calls"}
                print(f"{label} {phase}: {shown}")
        return
    rows = print_table(results["ours"], results["band-sdk"], args.rooms)
    for label in results:
        if label.startswith("ours@"):
            print(f"\n{label} beside ours and band-sdk, same run:")
            print_phases(results, ("ours", label, "band-sdk"))

    cpu = (
        results["ours"]["one_room"]["cpu_ms_per_turn"]
        / results["band-sdk"]["one_room"]["cpu_ms_per_turn"]
    )
    calls_ok = all(
        results["ours"][p]["rest_calls_per_turn"] <= results["band-sdk"][p]["rest_calls_per_turn"]
        for p in ("one_room", "many_rooms")
    )
    target = {
        "cpu_at_most_half": cpu <= 0.5,
        "cpu_ratio_1_room": round(cpu, 3),
        "rest_calls_not_more": calls_ok,
    }
    print(
        f"\ntarget (issue): CPU/turn <= 0.5x band-sdk -> {target['cpu_at_most_half']} ({cpu:.2f}x);"
    )
    print(f"                REST calls/turn <= band-sdk -> {calls_ok}")
    target.update(issue9_targets(results))
    for name, verdict in issue9_targets(results).items():
        print(f"issue 9: {name} -> {verdict}")
    RESULTS.mkdir(exist_ok=True)
    out = RESULTS / "sdk_overhead.json"
    payload = {
        "config": {**vars(args), "cpus": os.cpu_count()},
        "rows": rows,
        "target": target,
        "runs": results,
    }
    out.write_text(json.dumps(payload, indent=2))
    print(f"wrote {out}")


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One run's shape, every number the median over the runs (call counts from the first)."""
    if len(runs) == 1:
        return runs[0]
    out = dict(runs[0])
    for key in ("startup_s", "rss_mib_after_warmup", "rss_mib_at_end"):
        out[key] = round(statistics.median(r[key] for r in runs), 3)
    for phase in ("warmup", "one_room", "many_rooms"):
        merged = dict(runs[0][phase])
        for key, value in runs[0][phase].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                merged[key] = round(statistics.median(r[phase][key] for r in runs), 2)
        merged["runs"] = [{k: v for k, v in r[phase].items() if k != "calls"} for r in runs]
        out[phase] = merged
    out["repeat"] = len(runs)
    return out


def print_phases(results: dict[str, dict[str, Any]], labels: tuple[str, ...]) -> None:
    """Server CPU per turn, turns/s, agent CPU per turn and new connections, per phase."""
    print(f"{'phase':<12} | " + " | ".join(f"{x:>24}" for x in labels))
    for phase in ("one_room", "many_rooms"):
        measures = ("server_cpu_ms_per_turn", "turns_per_s", "cpu_ms_per_turn")
        for measure in (*measures, "new_connections_per_turn"):
            cells = " | ".join(f"{results[x][phase][measure]!s:>24}" for x in labels)
            print(f"{phase:<12} | {cells}   {measure}")


def next_calls(phase: dict[str, Any]) -> int:
    return sum(n for route, n in phase["calls"].items() if "/messages/next" in route)


def issue9_targets(results: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Issue 9, target 3 (and 2): each SDK variant of ours against band-sdk, same run."""
    theirs = results["band-sdk"]
    out: dict[str, Any] = {}
    for label in [x for x in results if x.startswith("ours")]:
        r = results.get(label)
        if r is None:
            continue
        for phase in ("one_room", "many_rooms"):
            mine, base = r[phase], theirs[phase]
            out[f"{label} {phase}: turns/s >= band-sdk"] = (
                f"{mine['turns_per_s']} vs {base['turns_per_s']}: "
                f"{(mine['turns_per_s'] or 0) >= (base['turns_per_s'] or 0)}"
            )
            out[f"{label} {phase}: server CPU/turn <= band-sdk"] = (
                f"{mine['server_cpu_ms_per_turn']} vs {base['server_cpu_ms_per_turn']} ms: "
                f"{mine['server_cpu_ms_per_turn'] <= base['server_cpu_ms_per_turn']}"
            )
            per_call = mine["server_cpu_ms_per_turn"] / max(mine["rest_calls_per_turn"], 1e-9)
            out[f"{label} {phase}: server CPU per REST call"] = f"{per_call:.2f} ms"
        out[f"{label}: /next calls in the warm-up turn"] = next_calls(r["warmup"])
        out[f"{label}: /next calls over the {r['many_rooms']['rooms']}-room phase"] = next_calls(
            r["many_rooms"]
        )
    out["band-sdk: /next calls in the warm-up turn"] = next_calls(theirs["warmup"])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=40, help="mentions in the 1-room phase")
    parser.add_argument(
        "--multi-turns", type=int, default=100, help="mentions in the many-room phase"
    )
    parser.add_argument("--rooms", type=int, default=50, help="rooms in the many-room phase")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per SDK, alternating; medians are reported"
    )
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds to wait per phase")
    parser.add_argument(
        "--logging",
        choices=("sdk", "warning"),
        default="sdk",
        help="agent logging: the SDK's configure_logging() (as the seed) or plain WARNING",
    )
    parser.add_argument(
        "--sdk",
        choices=("all", "both", "ours", "band-sdk"),
        default="both",
        help="which SDK(s) to run (all and both: ours and band-sdk)",
    )
    parser.add_argument(
        "--ours-src",
        metavar="TREE",
        help="also run our SDK and server from TREE/src (a before/after pair in one run)",
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="record py-spy collapsed stacks of agent and server per phase into DIR",
    )
    asyncio.run(amain(parser.parse_args()))


if __name__ == "__main__":
    main()
