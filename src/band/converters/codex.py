"""``CodexHistoryConverter``: the Codex thread a room's history names, to resume it.

The Codex adapter records its thread in the metadata of a ``task`` event
(``codex_thread_id``, ``codex_room_id``, ``codex_created_at``); the latest one wins, and one
that clears the thread (posted when a thread is archived) means there is none.
"""

from __future__ import annotations

from typing import Any

from band.adapters._coding.history import CodingHistoryConverter
from band.converters.helpers import optional_str, parse_iso_datetime
from band.core.protocols import HistoryConverter
from band.integrations.codex.types import CodexSessionState

__all__ = ["CodexHistoryConverter"]

THREAD_KEY = "codex_thread_id"


class CodexHistoryConverter(HistoryConverter[CodexSessionState]):
    """Room history -> ``CodexSessionState`` (the thread, its room, when it was made)."""

    def set_agent_name(self, name: str) -> None:
        """The thread does not depend on the agent's name."""

    def convert(self, raw: list[dict[str, Any]]) -> CodexSessionState:
        found = CodingHistoryConverter(THREAD_KEY).convert(raw)
        meta = found.session_metadata
        return CodexSessionState(
            thread_id=found.session_id,
            room_id=optional_str(meta.get("codex_room_id")),
            created_at=parse_iso_datetime(meta.get("codex_created_at")),
        )
