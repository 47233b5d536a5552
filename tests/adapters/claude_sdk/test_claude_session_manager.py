"""``ClaudeSessionManager`` on the real ``claude`` CLI (a fake Anthropic endpoint): a room's
CLI starts on its first use in the room's folder, one turn is read through ``TurnStream``,
a recovered CLI is replaced by one resuming the same Claude session, and a room's cleanup
closes its CLI and forgets it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from band.integrations.claude_sdk import ClaudeSessionManager
from band.integrations.claude_sdk.session_manager import ClaudeRoomSession
from band.testing import FakeModel
from band.workspaces import RoomWorkspaces

from .claude_support import claude_env

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]
ROOM = "room-1"


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel().reply("Hello from the fake model.")


def options(binary: Path, base_url: str, home: Path) -> Any:
    from claude_agent_sdk import ClaudeAgentOptions

    return ClaudeAgentOptions(
        model="claude-fake",
        cli_path=str(binary),
        env=claude_env(home, base_url),
        setting_sources=[],
        max_turns=1,
    )


async def one_turn(session: ClaudeRoomSession, text: str) -> tuple[Any, list[Any]]:
    async with session.using() as client:
        with session.listening() as stream:
            await client.query(text)
            messages = [m async for m in stream.until_result()]
    return client, messages


async def test_a_room_runs_its_own_cli_resumes_after_recovery_and_is_cleaned_up(
    claude_bin: Path, claude_home: Path, anthropic_url: str, tmp_path: Path
) -> None:
    from claude_agent_sdk import AssistantMessage, ResultMessage

    disposed: list[str] = []
    manager = ClaudeSessionManager(
        options(claude_bin, anthropic_url, claude_home),
        workspaces=RoomWorkspaces(lambda room: str(tmp_path / room)),
        on_disposed=disposed.append,
    )
    session = manager.room(ROOM)
    try:
        client, messages = await one_turn(session, "Say hello.")
        result = messages[-1]
        assert isinstance(result, ResultMessage) and not result.is_error
        texts = [
            block.text
            for m in messages
            if isinstance(m, AssistantMessage)
            for block in m.content
            if hasattr(block, "text")
        ]
        assert "Hello from the fake model." in texts
        assert manager.get_active_rooms() == [ROOM] and manager.get_session_count() == 1
        assert client.options.cwd == str(tmp_path / ROOM) and session.generation == 1

        session.adopt(result.session_id)  # a live CLI keeps its own
        assert session.session_id is None
        session.session_id = result.session_id
        assert session.recover("test: replace the CLI")
        again, messages = await one_turn(session, "Say hello again.")
        assert again is not client and session.generation == 2
        assert again.options.resume == result.session_id
        assert isinstance(messages[-1], ResultMessage)
        assert messages[-1].session_id == result.session_id
    finally:
        await manager.cleanup_session(ROOM)
        await manager.stop()

    assert disposed == [ROOM] and manager.session(ROOM) is None
    assert not manager.has_session(ROOM) and session.client is None
