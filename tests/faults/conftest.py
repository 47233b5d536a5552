"""Fixtures of the fault suite: one deployment for the module, put back before each scenario.

Starting three nodes and three agents costs tens of seconds on a loaded 2-core machine, so the
scenarios share one deployment (module scope) and each begins with `Cluster.restore`: Redis
and every node up, every agent running with its socket on its home node. Each scenario makes
its own rooms, so its figures count only its own burst.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from compat.compat_harness import CompatUnavailable, ensure_compat_venv
from scale.real_services import PostgresServer, RedisServer

from .cluster import AgentSpec, Cluster, seed_world

NODES = 3
AGENTS = {  # name: (SDK, home node)
    "Ours1": ("ours", 0),
    "Ours2": ("ours", 1),
    "Official": ("official", 2),
}


@pytest.fixture(scope="module")
def fault_postgres() -> Iterator[PostgresServer]:
    """Commits reach the OS before they are answered (fsync off, synchronous commit on), so a
    crash of PostgreSQL keeps what it acknowledged."""
    server = PostgresServer(fast_commits=False)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def fault_compat_python(pytestconfig: pytest.Config) -> Path:
    """The official band-sdk 6.0.1's interpreter (the compat venv, built on first use)."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")

    def progress(line: str) -> None:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                print(f"\n[compat] {line}", flush=True)

    try:
        return ensure_compat_venv(progress)
    except CompatUnavailable as exc:
        pytest.skip(f"the official band-sdk cannot be installed (registry unreachable): {exc}")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def deployment(
    tmp_path_factory: pytest.TempPathFactory,
    fault_postgres: PostgresServer,
    fault_compat_python: Path,
) -> AsyncIterator[Cluster]:
    """Three nodes on one PostgreSQL database and one Redis; Ours1 (our SDK) at home on node
    0, Ours2 (our SDK) on node 1, Official (band-sdk 6.0.1) on node 2."""
    root = tmp_path_factory.mktemp("faults")
    (root / "redis").mkdir()
    redis = RedisServer(root / "redis")
    clock = time.monotonic()
    timings: dict[str, float] = {}

    def lap(phase: str) -> None:
        nonlocal clock
        now = time.monotonic()
        timings[phase] = round(now - clock, 2)
        clock = now

    redis.start()
    database_url = await fault_postgres.create_database()
    world = await seed_world(database_url, list(AGENTS))
    lap("database")
    cluster = Cluster(
        root=root,
        pg=fault_postgres,
        redis=redis,
        database_url=database_url,
        world=world,
        compat_python=fault_compat_python,
        timings=timings,
    )
    try:
        await cluster.start_nodes(NODES)
        lap("nodes")
        specs = [AgentSpec(a, *AGENTS[a.name]) for a in world.agents]
        await asyncio.gather(*(cluster.start_agent(spec) for spec in specs))
        lap("agents")
        yield cluster
    finally:
        await cluster.aclose()
        redis.stop()


@pytest_asyncio.fixture(loop_scope="module")
async def cluster(deployment: Cluster) -> Cluster:
    """The deployment, restored to its starting line for this scenario."""
    started = time.monotonic()
    await deployment.restore()
    deployment.timings["restore"] = round(time.monotonic() - started, 2)
    return deployment
