"""``kill -9`` of the real ``codex app-server`` (the native binary under its npm wrapper),
mid-turn and between turns: reported once in the room, restarted by the next message on
the same thread, no message lost or answered twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from band.adapters import CodexAdapter
from band.testing import FakeModel

from ..band_serve import Room
from ..coding_e2e import (
    AgentStarter,
    CrashCase,
    agent_starter,
    crash_between_turns,
    crash_mid_turn,
    workspaces,
)
from .codex_support import codex_config

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

CASE = CrashCase("Codex app-server", "codex_thread_id", native="codex")


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_coder(
    band_serve: Any, codex_bin: Path, codex_home: Path, model_url: str, tmp_path: Path
) -> AgentStarter:
    def build() -> CodexAdapter:
        config = codex_config(codex_bin, model_url, codex_home)
        return CodexAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_killed_mid_turn(start_coder: AgentStarter, room: Room, fake: FakeModel) -> None:
    await crash_mid_turn(start_coder, room, fake, CASE)


async def test_killed_between_turns(start_coder: AgentStarter, room: Room, fake: FakeModel) -> None:
    await crash_between_turns(start_coder, room, fake, CASE)
