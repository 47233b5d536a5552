"""``kill -9`` of a room's real ``claude`` CLI, mid-turn and between turns: reported once in
the room, restarted by the next message on the same Claude session, nothing answered twice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from band.adapters import ClaudeSDKAdapter
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
from .claude_support import claude_config

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

CASE = CrashCase("Claude Code CLI", "claude_sdk_session_id")


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_claude(
    band_serve: Any, claude_bin: Path, claude_home: Path, anthropic_url: str, tmp_path: Path
) -> AgentStarter:
    def build() -> ClaudeSDKAdapter:
        config = claude_config(claude_bin, anthropic_url, claude_home)
        return ClaudeSDKAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_killed_mid_turn(start_claude: AgentStarter, room: Room, fake: FakeModel) -> None:
    await crash_mid_turn(start_claude, room, fake, CASE)


async def test_killed_between_turns(
    start_claude: AgentStarter, room: Room, fake: FakeModel
) -> None:
    await crash_between_turns(start_claude, room, fake, CASE)
