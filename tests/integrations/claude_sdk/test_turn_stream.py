"""``TurnStream``: one turn's share of a Claude CLI's output, and how its end reaches the
turn (``StreamEnd``). Plain objects stand for the CLI's messages here; the real CLI drives
the stream in ``tests/adapters/claude_sdk/test_claude_session_manager.py``."""

from __future__ import annotations

import asyncio

import pytest

from band.core.exceptions import RoomClosingError
from band.core.retention import RoomRetentionConfig
from band.integrations.claude_sdk.session_manager import (
    ClaudeSessionManager,
    ClaudeSessionManagerStoppedError,
    StreamEnd,
    TurnStream,
    default_claude_retention,
)


async def read(stream: TurnStream) -> list[object]:
    return [m async for m in stream.until_result()]


async def test_a_clean_end_stops_the_turn_and_stays_visible_to_later_reads() -> None:
    stream = TurnStream()
    stream.deliver("thinking")
    stream.deliver("text")
    stream.end(None)

    assert await read(stream) == ["thinking", "text"]
    assert await asyncio.wait_for(read(stream), 1) == []  # a drain never waits on it
    assert stream.ended == StreamEnd(None) and not stream.completed


async def test_a_failed_read_reaches_the_turn_as_its_error() -> None:
    stream = TurnStream()
    stream.deliver("partial")
    stream.end(ConnectionResetError("pipe closed"))
    seen: list[object] = []

    with pytest.raises(ConnectionResetError, match="pipe closed"):
        async for message in stream.until_result():
            seen.append(message)
    assert seen == ["partial"]


async def test_a_stopped_manager_takes_no_room() -> None:
    manager = ClaudeSessionManager(base_options=None, retention=RoomRetentionConfig())
    session = manager.room("r1")

    assert manager.room("r1") is session and manager.session("r2") is None
    assert not manager.has_session("r1") and manager.get_active_rooms() == []
    assert session.generation == 0 and not session.holds_cli
    session.adopt("sess-1")
    assert session.session_id == "sess-1"
    await manager.stop()
    with pytest.raises(ClaudeSessionManagerStoppedError) as stopped:
        manager.room("r2")
    assert isinstance(stopped.value, RoomClosingError)
    assert default_claude_retention().transition_timeout_s == 60.0
