"""band.converters.opencode: the room's OpenCode session (with what was recorded beside it)
and the messages to replay, as ``OpencodeSessionState``."""

from __future__ import annotations

from datetime import UTC, datetime

from band.converters.opencode import OpencodeHistoryConverter
from band.integrations.opencode import OpencodeSessionState


def test_the_latest_session_task_and_the_text_messages() -> None:
    made = datetime(2026, 5, 1, 12, tzinfo=UTC)
    raw = [
        {"message_type": "text", "content": "hello", "sender_name": "Alice"},
        {
            "message_type": "task",
            "content": "OpenCode session",
            "metadata": {
                "opencode_session_id": "ses_1",
                "opencode_mcp_server_name": "band_ab12",
                "opencode_room_id": "room-1",
                "opencode_created_at": made.isoformat(),
            },
        },
        {"message_type": "tool_call", "content": "{}", "sender_name": "Agent"},
        {"message_type": "text", "content": "again", "sender_name": "Alice"},
    ]
    state = OpencodeHistoryConverter().convert(raw)
    assert state == OpencodeSessionState(
        "ses_1", "band_ab12", "room-1", made, ["[Alice]: hello", "[Alice]: again"]
    )


def test_no_session_yet_or_an_archived_one() -> None:
    converter = OpencodeHistoryConverter()
    converter.set_agent_name("Coder")
    assert converter.convert([]) == OpencodeSessionState()
    archived = [
        {"message_type": "task", "metadata": {"opencode_session_id": "ses_1"}},
        {"message_type": "task", "metadata": {"opencode_session_id": None}},
    ]
    assert converter.convert(archived).session_id is None
