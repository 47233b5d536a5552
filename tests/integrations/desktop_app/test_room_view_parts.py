"""The room view's parts on their own: the connection borrowed from Claude Desktop's config,
the attention bookkeeping, the transcript reads' cursor rules, the inlined view document."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from band.integrations.desktop_app.attention import RoomSession
from band.integrations.desktop_app.prompts import monitoring_notice
from band.integrations.desktop_app.room import RoomMessage
from band.integrations.desktop_app.service import RoomTranscriptService, covers
from band.integrations.desktop_app.settings import DesktopRoomViewSettings, RoomViewTuning
from band.integrations.desktop_app.tools import AttentionMode
from band.integrations.desktop_app.view import room_view_fingerprint, room_view_html


def desktop_config(tmp_path: Path, servers: dict[str, Any]) -> Path:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


AGENT = {"command": "uvx", "args": ["--from", "band-sdk", "band-mcp"]}


def test_the_agent_key_is_borrowed_from_desktops_band_mcp_entry(tmp_path: Path) -> None:
    env = {"BAND_AGENT_KEY": "bk_scout", "BAND_BASE_URL": "http://127.0.0.1:8080"}
    config = desktop_config(
        tmp_path, {"scout": {**AGENT, "env": env}, "files": {"command": "mcp-files"}}
    )
    settings = DesktopRoomViewSettings(band_desktop_config=config)
    assert settings.resolve_connection() == (
        "bk_scout",
        "http://127.0.0.1:8080",
        "ws://127.0.0.1:8080/api/v1/socket/websocket",
    )
    explicit = DesktopRoomViewSettings(
        band_agent_key="bk_own", band_base_url="https://band.example", band_desktop_config=config
    )
    assert explicit.resolve_connection()[:2] == ("bk_own", "https://band.example")


def test_two_band_agents_in_desktop_need_a_choice(tmp_path: Path) -> None:
    two = {
        "scout": {**AGENT, "env": {"BAND_AGENT_KEY": "bk_1"}},
        "echo": {"command": "/opt/bin/band-mcp", "env": {"BAND_AGENT_KEY": "bk_2"}},
    }
    config = desktop_config(tmp_path, two)
    with pytest.raises(ValueError, match=r"several Band agents \(echo, scout\)"):
        DesktopRoomViewSettings(band_desktop_config=config).resolve_connection()
    chosen = DesktopRoomViewSettings(band_desktop_config=config, band_desktop_mcp_server="echo")
    assert chosen.resolve_connection()[0] == "bk_2"
    with pytest.raises(ValueError, match="no agent band-mcp server named 'nope'"):
        DesktopRoomViewSettings(
            band_desktop_config=config, band_desktop_mcp_server="nope"
        ).resolve_connection()
    with pytest.raises(ValueError, match="BAND_AGENT_KEY is required"):
        DesktopRoomViewSettings(band_desktop_config=tmp_path / "absent.json").resolve_connection()


def test_a_stopped_room_first_loop_is_noticed_once() -> None:
    clock = [datetime(2026, 1, 1, tzinfo=UTC)]
    session = RoomSession(lambda: clock[0], stale_grace_s=30)
    session.note_model_tick("r", quantum=5)
    clock[0] += timedelta(seconds=60)
    assert not session.monitoring("r").stale  # user_first: not looping is the intent
    session.set_mode("r", AttentionMode.ROOM_FIRST)
    stopped = session.monitoring("r")
    assert stopped.stale and stopped.idle_for == "1m 0s"
    assert "last band_wait_for_room_event call was 1m 0s ago" in monitoring_notice(stopped)
    assert session.claim_stale_report("r", stopped) is True
    assert session.claim_stale_report("r", stopped) is False
    session.note_model_tick("r", quantum=5)
    assert monitoring_notice(session.monitoring("r")) == ""
    assert session.view_missing("r")
    session.note_view_tick("r", quantum=5)
    assert not session.view_missing("r")


class PagedRoom:
    """A room's agent context as pages of ``page_size`` messages, oldest first."""

    def __init__(self, messages: list[dict[str, Any]]) -> None:
        self.messages = messages
        self.pages_read: list[int] = []

    async def get_agent_profile(self) -> dict[str, Any]:
        return {"id": "agent-1", "name": "Scout", "handle": "scout"}

    async def create_room(self, task_id: str | None = None) -> str:
        return "room-2"

    async def list_rooms(self) -> list[dict[str, Any]]:
        return [{"id": "room-1", "title": "Launch"}]

    async def list_participants(self, chat_id: str) -> list[dict[str, Any]]:
        return [
            {"id": "agent-1", "handle": "scout"},
            {"id": "u1", "handle": "alice", "type": "User"},
        ]

    async def list_agent_context(
        self, chat_id: str, *, page: int, page_size: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        self.pages_read.append(page)
        pages = max(1, -(-len(self.messages) // page_size))
        start = (page - 1) * page_size
        return self.messages[start : start + page_size], {"total_pages": pages}


def message(n: int, at: datetime, **more: Any) -> dict[str, Any]:
    return {
        "id": f"m{n}",
        "content": f"message {n}",
        "sender_id": "u1",
        "inserted_at": at.isoformat(),
        **more,
    }


async def test_a_resumed_read_walks_back_across_pages_and_never_repeats_a_tie() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    room = PagedRoom([message(n, t0 + timedelta(seconds=n)) for n in range(1, 10)])
    tuning = RoomViewTuning(band_transcript_page_size=2, band_initial_transcript_messages=3)
    service = RoomTranscriptService(room, tuning=tuning)
    opening = await service.read("room-1")
    assert [m.id for m in opening.messages] == ["m7", "m8", "m9"]
    # Two messages land in the same second as the cursor, and one after it.
    room.messages += [
        message(10, t0 + timedelta(seconds=9), content="same second"),
        message(11, t0 + timedelta(seconds=11)),
    ]
    room.pages_read.clear()
    resumed = await service.read("room-1", since=opening.resume_token)
    assert [m.id for m in resumed.messages] == ["m10", "m11"]
    assert room.pages_read == [1, 6, 5, 4]  # from the last page back to one before the cursor
    again = await service.read("room-1", since=resumed.resume_token)
    assert again.messages == [] and again.next_since == resumed.next_since


async def test_the_agents_own_last_message_answers_what_came_before() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    mention = {"mentions": [{"id": "agent-1"}]}
    room = PagedRoom(
        [
            message(1, t0, metadata=mention),
            message(2, t0 + timedelta(seconds=1), sender_id="agent-1"),
            message(3, t0 + timedelta(seconds=2), content="@[[agent-1]] and now?"),
        ]
    )
    transcript = await RoomTranscriptService(room).read("room-1")
    assert [m.id for m in transcript.pending_requests] == ["m3"]
    assert transcript.messages[2].content == "@scout and now?"


def test_a_read_is_covered_once_it_reaches_before_the_cursor() -> None:
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    tail = [RoomMessage(id="a", inserted_at=t0), RoomMessage(id="b", inserted_at=t0)]
    assert not covers(tail, after=t0, limit=5)
    assert covers(tail, after=t0 + timedelta(seconds=1), limit=5)
    assert covers(tail, after=None, limit=2) and not covers(tail, after=None, limit=3)


def test_the_view_is_one_self_contained_document() -> None:
    page = room_view_html()
    assert "/*@" not in page and "<script src" not in page and "<link" not in page
    assert "textContent" in page and "innerHTML" not in page  # room text is never markup
    assert len(room_view_fingerprint()) == 12


def test_without_mcp_only_the_server_refuses_and_names_the_extra() -> None:
    import subprocess
    import sys

    script = (
        "import sys; sys.modules['mcp'] = None\n"
        "import band.integrations.desktop_app.service, band.integrations.desktop_app.prompts\n"
        "try:\n    import band.integrations.desktop_app.server\n"
        "except ModuleNotFoundError as exc:\n    print(exc.name, '|', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == (
        "mcp | the Claude Desktop room view needs the MCP SDK: pip install 'openband[desktop]'"
    )
