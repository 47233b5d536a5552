"""band.converters.copilot_sdk: the room's Copilot session and its text history, as
``CopilotSDKSessionState``."""

from __future__ import annotations

from band.adapters._coding.history import as_coding_history
from band.converters.copilot_sdk import CopilotSDKHistoryConverter, CopilotSDKSessionState


def test_the_latest_session_and_a_line_per_message() -> None:
    raw = [
        {"message_type": "text", "content": "two\nlines", "sender_name": "Alice"},
        {"message_type": "task", "metadata": {"copilot_session_id": "band-a-room"}},
        {"message_type": "text", "content": "done", "sender_name": "Agent"},
    ]
    state = CopilotSDKHistoryConverter("Agent").convert(raw)
    assert state == CopilotSDKSessionState("[Alice]: two\nlines\n[Agent]: done", "band-a-room")
    # The adapter reads each message whole, a message of two lines included.
    assert as_coding_history(state, "room").transcript == ("[Alice]: two\nlines", "[Agent]: done")


def test_a_state_made_by_hand_splits_its_text_into_lines() -> None:
    state = CopilotSDKSessionState("[Alice]: hi\n[Bob]: hey")
    assert state.session_id is None and state.transcript == ("[Alice]: hi", "[Bob]: hey")
    assert CopilotSDKHistoryConverter().convert([]) == CopilotSDKSessionState()
