"""``NooaHistoryConverter``: room history as the transcript lines a NOOA agent is seeded with.

A NOOA agent keeps its own event log for as long as its instance lives, so the platform's
history only matters for an agent created after the room already talked: it gets the room's
text messages as ``[sender]: content`` lines, oldest first (events are left out). Needs no
NOOA import, so it loads on every Python, as band-sdk's does.
"""

from __future__ import annotations

import logging
from typing import Any

from band.converters.helpers import build_replay_messages

__all__ = ["NooaHistoryConverter", "NooaTranscript"]

logger = logging.getLogger(__name__)

NooaTranscript = list[str]


class NooaHistoryConverter:
    """Room history -> ``NooaTranscript`` (``[sender]: content`` lines of text messages)."""

    def __init__(self, agent_name: str = "") -> None:
        self._agent_name = agent_name

    @property
    def agent_name(self) -> str:
        return self._agent_name

    def set_agent_name(self, name: str) -> None:
        """Remember the agent's name (each line already names its sender)."""
        self._agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> NooaTranscript:
        lines = build_replay_messages(raw)
        logger.debug("nooa history: %d event(s) -> %d line(s)", len(raw), len(lines))
        return lines
