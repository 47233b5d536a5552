"""``ClaudeSDKSessionState``: what the Claude SDK converter keeps of a room's history, and
how the adapter reads it (also one a band-sdk-style converter built from ``text`` alone)."""

from __future__ import annotations

from band.adapters._coding.history import CodingHistory, as_coding_history
from band.converters.claude_sdk import (
    SESSION_ID_METADATA_KEY,
    ClaudeSDKHistoryConverter,
    ClaudeSDKSessionState,
)

RAW = [
    {"message_type": "text", "content": "fix the build", "sender_name": "Alice"},
    {
        "message_type": "task",
        "content": "Claude SDK session",
        "metadata": {SESSION_ID_METADATA_KEY: "sess-1", "claude_sdk_room_id": "r1"},
    },
    {"message_type": "text", "content": "line one\nline two", "sender_name": "Bob"},
]


def test_the_state_holds_the_history_as_text_and_the_session_to_resume() -> None:
    state = ClaudeSDKHistoryConverter().convert(RAW)

    assert isinstance(state, ClaudeSDKSessionState)
    assert state.session_id == "sess-1"
    assert state.text == "[Alice]: fix the build\n[Bob]: line one\nline two"
    assert state.transcript == ("[Alice]: fix the build", "[Bob]: line one\nline two")
    assert state.session_metadata["claude_sdk_room_id"] == "r1"
    assert ClaudeSDKHistoryConverter().convert([]) == ClaudeSDKSessionState()


def test_the_adapter_reads_the_state_as_its_coding_history() -> None:
    state = ClaudeSDKHistoryConverter().convert(RAW)
    built = ClaudeSDKSessionState("[Alice]: hi\n\n[Bob]: hello", "sess-2")

    assert as_coding_history(state, "r1") == CodingHistory(
        "sess-1", state.transcript, state.session_metadata
    )
    assert as_coding_history(built, "r1") == CodingHistory(
        "sess-2", ("[Alice]: hi", "[Bob]: hello")
    )
