"""``A2AHistoryConverter``: the A2A conversation a room maps to, from its latest ``task`` event."""

from __future__ import annotations

from typing import Any

from band.converters.helpers import task_metadata
from band.core.protocols import HistoryConverter
from band.integrations.a2a.types import A2ASessionState

__all__ = ["A2AHistoryConverter"]


class A2AHistoryConverter(HistoryConverter[A2ASessionState]):
    """Reads ``a2a_context_id`` / ``a2a_task_id`` / ``a2a_task_state`` (the latest event wins)."""

    def convert(self, raw: list[dict[str, Any]]) -> A2ASessionState:
        for item in reversed(raw):
            metadata = task_metadata(item)
            if metadata and "a2a_context_id" in metadata:
                return A2ASessionState(
                    context_id=metadata.get("a2a_context_id"),
                    task_id=metadata.get("a2a_task_id"),
                    task_state=metadata.get("a2a_task_state"),
                )
        return A2ASessionState()
