"""Runs the test suite as independent groups in parallel, each in its own pytest process.

Called by ``scripts/test`` once the environments are built (``.venv``, the compat venvs, the
npm tools, apt packages): nothing here installs anything shared. Each group writes its output
to ``<logs>/<group>.log`` and a JUnit report; the run prints progress lines while groups run
and a summary table at the end. The run fails when a group fails, times out or collects no
tests (pytest's exit status 5).

Groups are whole test directories, so they share no fixture, temp folder or port: every test
binds port 0 and works in its own ``tmp_path`` (each group gets its own ``--basetemp``);
the isolated venvs they build on first use (hermes, the adapter envs) belong to one group
each. Groups marked heavy start real service stacks (PostgreSQL, Redis, several nodes, a
browser) and count double against the job limit, so two of them run side by side only when
``BAND_TEST_JOBS`` leaves room.

Environment: ``BAND_TEST_JOBS`` (parallel weight, default 4), ``BAND_TEST_GROUPS`` (comma
list: run only these; ``server`` means both halves, ``env`` every framework environment),
``BAND_TEST_GROUP_TIMEOUT`` (seconds per group, default 2400), ``BAND_SKIP_ADAPTER_ENVS=1``
(leave out the framework environments), ``BAND_TEST_LOGS``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
PYTHON = str(ROOT / ".venv" / "bin" / "python")
PROGRESS_EVERY = 30.0
TAIL_LINES = 80


@dataclass
class Group:
    name: str
    paths: list[str]  # test paths for pytest, or empty for a custom command
    estimate: float  # seconds on 2 cores, for longest-first ordering
    weight: int = 1
    command: list[str] | None = None  # instead of pytest on paths
    kind: str = "pytest"  # "pytest" (counts tests) or "check" (exit status only)
    # filled while running
    proc: subprocess.Popen[bytes] | None = None
    started: float = 0.0
    seconds: float = 0.0
    rc: int | None = None
    note: str = ""
    counts: dict[str, int] = field(default_factory=dict)


def declared_groups() -> list[Group]:
    # Estimates: seconds measured with every group running on a loaded 2-core machine (the
    # framework environments as a clean checkout builds them); longest start first.
    # tests/server mirrors src/band_server (http/, store/, services/<domain>/ ...)
    server = sorted(p.relative_to(ROOT).as_posix() for p in (TESTS / "server").rglob("test_*.py"))
    half = len(server) // 2
    soak = "tests/scale/test_soak.py"
    scale = sorted(f"tests/scale/{p.name}" for p in (TESTS / "scale").glob("test_*.py"))
    scale = [p for p in scale if p != soak]
    groups = [
        Group("lint", [], 60, command=["bash", "-c", LINT], kind="check"),
        # The largest folder, in two halves by file name, so it does not end the run alone.
        Group("server:1", server[:half], 420),
        Group("server:2", server[half:], 420),
        Group("sdk", ["tests/sdk", "tests/protocol"], 125),  # the SDK and the wire package
        Group("browser", ["tests/browser"], 150, weight=2),  # 138 s at load 10 (issue 31)
        Group("compat", ["tests/compat"], 330, weight=2),
        Group("schemathesis", ["tests/schemathesis"], 190),
        # Codex, OpenCode, the Copilot CLI (ACP and SDK), ACP stand-ins: 481-598 s at load 7-13
        Group("adapters", ["tests/adapters"], 540),
        Group("conformance", ["tests/conformance"], 300),  # 235-366 s at load 7-13 (issue 32)
        # Real PostgreSQL, Redis and several nodes: ~330 s at load 13. The two-minute soak
        # (one node, its load in three processes: ~160 s) is a group of its own beside it.
        Group("scale", scale, 340, weight=2),
        Group("scale:soak", [soak], 180, weight=2),
        Group("e2e", ["tests/e2e", "tests/integrations"], 260),
        Group("hermes", ["tests/hermes"], 145),  # most of it builds the Hermes venv
        Group("bench", ["tests/bench"], 10),  # the benchmarks' offline parts (scaling_sim)
        # tsc, eslint and node:test of sdk-ts and openclaw-channel, the seed's agent.ts with
        # Parlant and the real OpenClaw gateway: ~145 s warm, ~480 s when it also waits for
        # .venvs/parlant (built once, under a lock, with env:parlant).
        Group("typescript", ["tests/typescript"], 420, weight=2),
        Group("faults", ["tests/faults"], 480, weight=2),  # up to ~8 min: starts first
    ]
    if not os.environ.get("BAND_SKIP_ADAPTER_ENVS"):  # most of each builds its venv
        for env, estimate in (
            ("parlant", 440),
            ("langgraph", 160),
            ("pydantic-ai", 130),
            ("crewai-strands", 480),  # CrewAI (+ Flow) and Strands share a venv: ~5 min build
            ("agno", 150),
            ("gemini", 100),  # the newest google-genai
            ("google-adk", 180),  # the current google-adk 1.x (google-genai 2.x)
            ("google-adk-1.19", 150),  # google-adk 1.19 (google-genai 1.75)
            ("letta", 600),  # a real Letta server on PostgreSQL: its env, then ~2 min to start
            ("claude-sdk", 150),  # the real claude CLI (.tools/claude); ~100 s of it builds
        ):
            groups.append(
                Group(f"env:{env}", [], estimate, command=["./scripts/test-adapter", env])
            )
    claimed = {Path(p).parts[1] for g in groups for p in g.paths}
    present = [g for g in groups if not g.paths or all((ROOT / p).exists() for p in g.paths)]
    leftovers = sorted(
        f"tests/{p.name}"
        for p in TESTS.iterdir()
        if p.name not in claimed
        and ((p.is_dir() and any(p.rglob("test_*.py"))) or p.name.startswith("test_"))
    )
    if leftovers:  # a new test folder runs even before someone gives it a group
        present.append(Group("other", leftovers, 120))
    return present


LINT = (
    ".venv/bin/ruff check --no-cache src tests bench scripts"
    " && .venv/bin/ruff format --no-cache --check src tests bench scripts"
    " && .venv/bin/mypy"
    # the import contracts ([tool.importlinter]), then the docs site (a broken link fails)
    " && .venv/bin/lint-imports --no-cache"
    " && NO_MKDOCS_2_WARNING=1 .venv/bin/python -m mkdocs build --strict --site-dir .site"
    " && .venv/bin/bandit -q -r src"
)


def command_of(group: Group, logs: Path, scratch: Path) -> list[str]:
    junit = logs / f"{group.name.replace(':', '-')}.xml"
    basetemp = scratch / group.name.replace(":", "-")
    pytest_args = ["-p", "no:cacheprovider", "-q", "-ra", f"--junitxml={junit}"]
    pytest_args.append(f"--basetemp={basetemp}")
    if group.command is not None:
        return group.command + (pytest_args if group.kind == "pytest" else [])
    return [PYTHON, "-m", "pytest", *pytest_args, *group.paths]


def read_counts(group: Group, logs: Path) -> dict[str, int]:
    junit = logs / f"{group.name.replace(':', '-')}.xml"
    if not junit.exists():
        return {}
    root = ET.parse(junit).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        for key in total:
            total[key] += int(suite.get(key, "0"))
    return total


def log_of(group: Group, logs: Path) -> Path:
    return logs / f"{group.name.replace(':', '-')}.log"


def start(group: Group, logs: Path, scratch: Path, env: dict[str, str]) -> None:
    out = log_of(group, logs).open("wb")
    group.started = time.monotonic()
    group.proc = subprocess.Popen(
        command_of(group, logs, scratch),
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        start_new_session=True,  # its own process group: a timeout kills all its children
    )
    out.close()


def kill(group: Group) -> None:
    if group.proc is None or group.proc.poll() is not None:
        return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group.proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            group.proc.wait(timeout=15)
            return
        except subprocess.TimeoutExpired:
            continue


def finish(group: Group, logs: Path) -> None:
    assert group.proc is not None
    group.seconds = time.monotonic() - group.started
    group.rc = group.proc.returncode if group.rc is None else group.rc
    group.counts = read_counts(group, logs)
    text = log_of(group, logs).read_text(errors="replace")
    if group.kind == "pytest" and not group.counts:
        skipped = [line for line in text.splitlines() if line.startswith("SKIPPED:")]
        if group.rc == 0 and skipped:  # an environment the registry could not provide
            group.note = skipped[-1][:70]
        elif group.rc == 0:
            group.rc, group.note = 1, "no test report"
    if group.rc == 5 or (group.kind == "pytest" and group.counts.get("tests") == 0):
        group.rc, group.note = 5, "collected no tests"


def status_of(group: Group) -> str:
    if group.rc == 0:
        return "ok"
    return f"FAIL ({group.rc})" + (f" {group.note}" if group.note else "")


def elapsed(since: float) -> str:
    return f"{time.monotonic() - since:6.0f}s"


def run(groups: list[Group], jobs: int, limit: float, logs: Path, scratch: Path) -> None:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    pending = sorted(groups, key=lambda g: -g.estimate)
    running: list[Group] = []
    began = time.monotonic()
    last_progress = began
    while pending or running:
        used = sum(g.weight for g in running)
        # Strictly longest first: a heavy group next in line waits for room rather than
        # letting shorter ones pass it again and again (it would then end the run late).
        while pending and (not running or used + pending[0].weight <= jobs):
            group = pending.pop(0)
            start(group, logs, scratch, env)
            running.append(group)
            used += group.weight
            print(f"[{elapsed(began)}] start {group.name}", flush=True)
        time.sleep(0.5)
        for group in list(running):
            assert group.proc is not None
            if group.proc.poll() is None and time.monotonic() - group.started > limit:
                group.rc, group.note = 124, f"timed out after {limit:.0f}s"
                kill(group)
            if group.proc.poll() is None:
                continue
            running.remove(group)
            finish(group, logs)
            print(f"[{elapsed(began)}] done  {group.name}: {status_of(group)}", flush=True)
        if time.monotonic() - last_progress >= PROGRESS_EVERY and running:
            last_progress = time.monotonic()
            now = ", ".join(f"{g.name} {time.monotonic() - g.started:.0f}s" for g in running)
            waiting = f"; waiting: {', '.join(g.name for g in pending)}" if pending else ""
            print(f"[{elapsed(began)}] running: {now}{waiting}", flush=True)


def summary(groups: list[Group], wall: float) -> str:
    rows = [("group", "passed", "failed", "skipped", "seconds", "status")]
    for g in sorted(groups, key=lambda g: g.name):
        c = g.counts
        if c:
            failed = c["failures"] + c["errors"]
            passed = c["tests"] - failed - c["skipped"]
            counts = (str(passed), str(failed), str(c["skipped"]))
        else:
            counts = ("-", "-", "-")
        rows.append((g.name, *counts, f"{g.seconds:.0f}", status_of(g)))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i]) for i in range(1, 5)]
        lines.append("  ".join([*cells, row[5]]))
    lines.insert(1, "-" * len(lines[0]))
    total = sum(g.counts.get("tests", 0) for g in groups)
    serial = sum(g.seconds for g in groups)
    lines.append(f"{total} tests in {wall:.0f}s wall ({serial:.0f}s if run one after another)")
    return "\n".join(lines)


def main() -> int:
    jobs = int(os.environ.get("BAND_TEST_JOBS", "4"))
    limit = float(os.environ.get("BAND_TEST_GROUP_TIMEOUT", "2400"))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    logs = Path(os.environ.get("BAND_TEST_LOGS", ROOT / ".test-logs" / stamp)).resolve()
    logs.mkdir(parents=True, exist_ok=True)
    # Each group's --basetemp, outside the checkout: a test that runs git (Codex diffs) in its
    # tmp_path must not find our repository around it.
    scratch = Path(tempfile.mkdtemp(prefix=f"band-tests-{stamp}-"))
    groups = declared_groups()
    wanted = [w for w in os.environ.get("BAND_TEST_GROUPS", "").split(",") if w]
    if wanted:  # a name, or what comes before its ":" (server = server:1 and server:2)
        names = {g.name for g in groups} | {g.name.split(":")[0] for g in groups}
        unknown = set(wanted) - names
        if unknown:
            print(f"unknown groups: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        groups = [g for g in groups if {g.name, g.name.split(":")[0]} & set(wanted)]
    load = os.getloadavg()[0]
    print(
        f"{len(groups)} groups, job weight {jobs}, {os.cpu_count()} cores, load {load:.1f};"
        f" logs in {logs}",
        flush=True,
    )
    began = time.monotonic()

    def stop(signum: int, _frame: object) -> None:
        for group in groups:
            kill(group)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    run(groups, jobs, limit, logs, scratch)
    wall = time.monotonic() - began
    failed = [g for g in groups if g.rc != 0]
    for group in failed:
        tail = log_of(group, logs).read_text(errors="replace").splitlines()[-TAIL_LINES:]
        print(f"\n==> {group.name} failed: last {len(tail)} lines of {log_of(group, logs)}")
        print("\n".join(tail))
    table = summary(groups, wall)
    (logs / "summary.txt").write_text(table + "\n")
    print(f"\n==> summary (load now {os.getloadavg()[0]:.1f})\n{table}")
    if failed:
        print(f"temporary folders of the tests kept in {scratch}")
        return 1
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
