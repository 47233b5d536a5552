"""Fixtures for the compat suite (the official band-sdk client against our server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from .compat_harness import (
    AgentApi,
    AgentCreds,
    CompatUnavailable,
    HumanApi,
    Person,
    Seeder,
    ServerProcess,
    World,
    ensure_compat_venv,
    seed,
)


@pytest.fixture(scope="session")
def compat_python(pytestconfig: pytest.Config) -> Path:
    """The compat venv's interpreter (built on first use, then reused)."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")

    def progress(line: str) -> None:
        if capture is not None:
            with capture.global_and_fixture_disabled():
                print(f"\n[compat] {line}", flush=True)
        else:
            print(f"[compat] {line}", flush=True)

    try:
        return ensure_compat_venv(progress)
    except CompatUnavailable as exc:
        pytest.skip(f"official band-sdk unavailable, compat tests skipped: {exc}")


async def _build_world(seeder: Seeder) -> tuple[Person, AgentCreds, AgentCreds, str, str]:
    alice = await seeder.person("alice", "Alice")
    echo = await seeder.agent(alice, "Echo")
    other = await seeder.agent(alice, "Other")
    room = await seeder.room(alice, "Compat main", [echo, other])
    side = await seeder.room(alice, "Compat side", [])
    return alice, echo, other, room, side


async def _world(
    tmp_path: Path, compat_python: Path | None, server_env: dict[str, str] | None = None
) -> AsyncIterator[World]:
    data_dir = tmp_path / "data"
    alice, echo, other, room, side = await seed(data_dir, _build_world)
    server = ServerProcess(data_dir=data_dir, log_dir=tmp_path / "logs", env=server_env or {})
    await server.start()
    world = World(
        tmp=tmp_path,
        server=server,
        person=alice,
        agent=echo,
        other=other,
        room=room,
        side_room=side,
        human=HumanApi(server.url, alice.key),
        agent_api=AgentApi(server.url, echo.key),
        compat_python=compat_python,
    )
    try:
        yield world
    finally:
        for a in world.agents:
            a.stop()
        await world.human.aclose()
        await world.agent_api.aclose()
        server.stop()


@pytest.fixture
async def world(tmp_path: Path, compat_python: Path) -> AsyncIterator[World]:
    """Seeded server plus the official SDK ready to run agents."""
    async for w in _world(tmp_path, compat_python):
        yield w


@pytest.fixture
async def server_only_world(tmp_path: Path) -> AsyncIterator[World]:
    """Seeded server without the official SDK (durability checks)."""
    async for w in _world(tmp_path, None):
        yield w
