"""Fixtures of the fault suite: one deployment for the module, put back before each scenario.

Starting three nodes and three agents costs tens of seconds on a loaded 2-core machine, so the
scenarios share one deployment (module scope) and each begins with `Cluster.restore`: Redis
and every node up, every agent running with its socket on its home node. Each scenario makes
its own rooms, so its figures count only its own burst. `test_recovery.py` has a deployment of
its own (`pair`); PostgreSQL is one server for the session, a new database per deployment.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from compat.compat_harness import CompatUnavailable, ensure_compat_venv
from scale.real_services import PostgresServer, RedisServer

from .cluster import DELIVERY_LEASE, AgentSpec, Cluster, seed_world

NODES = 3
AGENTS = {  # name: (SDK, home node)
    "Ours1": ("ours", 0),
    "Ours2": ("ours", 1),
    "Official": ("official", 2),
}


@pytest.fixture(scope="session")
def fault_postgres() -> Iterator[PostgresServer]:
    """Commits reach the OS before they are answered (fsync off, synchronous commit on), so a
    crash of PostgreSQL keeps what it acknowledged."""
    server = PostgresServer(fast_commits=False)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
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


@contextlib.asynccontextmanager
async def deployed(
    root: Path,
    pg: PostgresServer,
    compat_python: Path,
    agents: dict[str, tuple[str, int, bool]],
    *,
    nodes: int,
    lease: float | None,
) -> AsyncIterator[Cluster]:
    """``nodes`` nodes on a new database of ``pg`` and a new Redis, and ``agents`` (name: SDK,
    home node, whether its balancer fails over to the other nodes) running and connected."""
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
    database_url = await pg.create_database()
    world = await seed_world(database_url, list(agents))
    lap("database")
    cluster = Cluster(
        root=root,
        pg=pg,
        redis=redis,
        database_url=database_url,
        world=world,
        compat_python=compat_python,
        lease=lease,
        timings=timings,
    )
    try:
        await cluster.start_nodes(nodes)
        lap("nodes")
        specs = [
            AgentSpec(a, sdk, home, failover=failover)
            for a in world.agents
            for sdk, home, failover in [agents[a.name]]
        ]
        await asyncio.gather(*(cluster.start_agent(spec) for spec in specs))
        lap("agents")
        yield cluster
    finally:
        await cluster.aclose()
        redis.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def deployment(
    tmp_path_factory: pytest.TempPathFactory,
    fault_postgres: PostgresServer,
    fault_compat_python: Path,
) -> AsyncIterator[Cluster]:
    """Three nodes on one PostgreSQL database and one Redis; Ours1 (our SDK) at home on node
    0, Ours2 (our SDK) on node 1, Official (band-sdk 6.0.1) on node 2."""
    root = tmp_path_factory.mktemp("faults")
    agents = {name: (sdk, home, True) for name, (sdk, home) in AGENTS.items()}
    async with deployed(
        root, fault_postgres, fault_compat_python, agents, nodes=NODES, lease=DELIVERY_LEASE
    ) as cluster:
        yield cluster


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pair(
    tmp_path_factory: pytest.TempPathFactory,
    fault_postgres: PostgresServer,
    fault_compat_python: Path,
) -> AsyncIterator[Cluster]:
    """Issue 27's deployment: nodes A and B on one PostgreSQL database and one Redis, with the
    default delivery lease; Ours (our SDK) and Official (band-sdk 6.0.1) with their sockets on
    B and no other node to fail over to."""
    root = tmp_path_factory.mktemp("recovery")
    agents = {"Ours": ("ours", 1, False), "Official": ("official", 1, False)}
    async with deployed(
        root, fault_postgres, fault_compat_python, agents, nodes=2, lease=None
    ) as cluster:
        yield cluster


@pytest_asyncio.fixture(loop_scope="module")
async def cluster(deployment: Cluster) -> Cluster:
    """The deployment, restored to its starting line for this scenario."""
    started = time.monotonic()
    await deployment.restore()
    deployment.timings["restore"] = round(time.monotonic() - started, 2)
    return deployment
