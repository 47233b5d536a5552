"""The coding adapters' history converters at band-sdk's paths (``band.converters.<module>``):
each finds its own adapter's session in the room's task events, and the transcript (read
through ``as_coding_history``, as the adapters read each converter's state)."""

from __future__ import annotations

from typing import Any

import pytest

from band.adapters._coding.history import as_coding_history
from band.adapters.acp.adapter import SESSION_KEY as ACP_KEY
from band.adapters.claude_sdk.adapter import SESSION_KEY as CLAUDE_KEY
from band.adapters.copilot_sdk import SESSION_KEY as COPILOT_KEY
from band.adapters.opencode.adapter import SESSION_KEY as OPENCODE_KEY
from band.converters import (
    ACPClientHistoryConverter,
    ClaudeSDKHistoryConverter,
    CopilotSDKHistoryConverter,
    OpencodeHistoryConverter,
)


def task(key: str, value: str | None) -> dict[str, Any]:
    return {"message_type": "task", "content": "session", "metadata": {key: value}}


@pytest.mark.parametrize(
    ("converter", "key"),
    [
        (ClaudeSDKHistoryConverter(), CLAUDE_KEY),
        (OpencodeHistoryConverter(), OPENCODE_KEY),
        (CopilotSDKHistoryConverter(), COPILOT_KEY),
        (ACPClientHistoryConverter(), ACP_KEY),
    ],
)
def test_each_finds_its_adapters_latest_session_and_the_transcript(
    converter: Any, key: str
) -> None:
    other = "codex_thread_id"
    raw = [
        {"message_type": "text", "content": "hello", "sender_name": "Alice"},
        task(key, "s-1"),
        task(other, "not-mine"),
        task(key, "s-2"),
        {"message_type": "text", "content": "again", "sender_name": "Alice"},
    ]
    state = as_coding_history(converter.convert(raw), "room-1")
    assert state.session_id == "s-2"
    assert state.transcript == ("[Alice]: hello", "[Alice]: again")
    assert converter.convert([*raw, task(key, None)]).session_id is None  # archived
