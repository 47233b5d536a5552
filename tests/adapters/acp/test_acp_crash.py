"""``kill -9`` of the ACP agent process, mid-turn and between turns: reported once in the
room, restarted by the next message on the same session, no message lost or answered
twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from band.adapters import ACPClientAdapter
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
from .test_acp_e2e import acp_config

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

CASE = CrashCase("ACP agent", "acp_client_session_id")


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_agent(band_serve: Any, model_url: str, tmp_path: Path) -> AgentStarter:
    def build() -> ACPClientAdapter:
        return ACPClientAdapter(acp_config(model_url), workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_killed_mid_turn(start_agent: AgentStarter, room: Room, fake: FakeModel) -> None:
    await crash_mid_turn(start_agent, room, fake, CASE)


async def test_killed_between_turns(start_agent: AgentStarter, room: Room, fake: FakeModel) -> None:
    await crash_between_turns(start_agent, room, fake, CASE)
