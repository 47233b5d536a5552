"""The coding-agent conformance of the ACP profiles (Copilot, Cursor, OMP) beyond their own
extensions: a missing CLI answered once in words in the room; ``/status`` and ``/help``;
the same session after a restart (Cursor and OMP against the stand-in; Copilot's real CLI
is in ``test_copilot_acp.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from band.adapters import (
    CopilotACPAdapter,
    CopilotACPAdapterConfig,
    CursorACPAdapter,
    CursorACPAdapterConfig,
    OmpACPAdapter,
    OmpACPAdapterConfig,
)
from band.adapters.acp import ACPClientAdapter
from band.testing import FakeModel

from ..band_serve import Room
from ..coding_e2e import (
    agent_starter,
    resumes_the_same_session,
    status_help_texts,
    workspaces,
)

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

STANDIN = [sys.executable, str(Path(__file__).with_name("standin_agent.py"))]
KEY = "acp_client_session_id"
Build = Callable[[list[str], dict[str, str], Path], ACPClientAdapter]

PROFILES: dict[str, Build] = {
    "copilot": lambda cmd, env, root: CopilotACPAdapter(
        CopilotACPAdapterConfig(command=cmd, env=env), workspace_for_room=workspaces(root)
    ),
    "cursor": lambda cmd, env, root: CursorACPAdapter(
        CursorACPAdapterConfig(command=cmd, env=env), workspace_for_room=workspaces(root)
    ),
    "omp": lambda cmd, env, root: OmpACPAdapter(  # OMP's command carries its subcommand
        OmpACPAdapterConfig(command=[*cmd, "acp"], env=env), workspace_for_room=workspaces(root)
    ),
}


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.mark.parametrize("profile", sorted(PROFILES))
async def test_a_missing_cli_is_answered_once_in_words(
    band_serve: Any, room: Room, tmp_path: Path, profile: str
) -> None:
    missing = tmp_path / "not-installed"
    build = PROFILES[profile]
    async with agent_starter(band_serve, lambda: build([str(missing)], {}, tmp_path))() as agent:
        await room.ask("hello", status="failed")
        errors = [e["content"] for e in await room.events("error")]
        texts = await room.texts()
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"The {agent.LABEL} could not start:")
    assert str(missing) in errors[0]
    assert texts == []  # no reply, no second notice


@pytest.mark.parametrize("profile", ["cursor", "omp"])
async def test_status_help_and_the_same_session_after_a_restart(
    band_serve: Any, room: Room, model_url: str, tmp_path: Path, profile: str, fake: FakeModel
) -> None:
    env = {"BAND_FAKE_MODEL_URL": model_url, "BAND_STANDIN": profile}
    build = PROFILES[profile]
    start = agent_starter(band_serve, lambda: build(list(STANDIN), env, tmp_path))
    before, after, _ = await status_help_texts(start, room)
    assert "not running (it starts with the next message)" in before
    assert "Session: none yet." in before
    assert "running (pid " in after and "Session: `" in after
    await resumes_the_same_session(start, room, fake, KEY)
