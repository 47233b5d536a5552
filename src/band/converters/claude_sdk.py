"""The history converter of ``ClaudeSDKAdapter``, at band-sdk's module path.

It reads the room's Claude Code session id from the adapter's own ``task`` events (metadata
key ``claude_sdk_session_id``; the latest wins) and the room's messages as a transcript, which
a new session gets when the saved one cannot be resumed. Its state is
:class:`ClaudeSDKSessionState`: the transcript as one ``text`` and the ``session_id``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from band.adapters._coding.history import CodingHistory, CodingHistoryConverter

__all__ = ["SESSION_ID_METADATA_KEY", "ClaudeSDKHistoryConverter", "ClaudeSDKSessionState"]

SESSION_ID_METADATA_KEY = "claude_sdk_session_id"


@dataclass
class ClaudeSDKSessionState:
    """What the converter hands the adapter: the room's history as ``text`` (one message a
    line) and the Claude session to resume (None: start one).

    ``transcript`` keeps the same messages one by one (a message may span lines) and
    ``session_metadata`` the task event the session id came from.
    """

    text: str = ""
    session_id: str | None = None
    transcript: tuple[str, ...] = field(default=(), kw_only=True)
    session_metadata: dict[str, Any] = field(default_factory=dict, kw_only=True)

    def coding_history(self) -> CodingHistory:
        """The state as the coding adapters read it (the transcript from ``text`` when
        only that was given)."""
        lines = self.transcript or tuple(line for line in self.text.splitlines() if line)
        return CodingHistory(self.session_id, lines, dict(self.session_metadata))


class ClaudeSDKHistoryConverter:
    """Room history -> :class:`ClaudeSDKSessionState` (``claude_sdk_session_id``)."""

    def __init__(self, agent_name: str = "") -> None:
        self._coding = CodingHistoryConverter(SESSION_ID_METADATA_KEY, agent_name)

    @property
    def agent_name(self) -> str:
        return self._coding.agent_name

    def set_agent_name(self, name: str) -> None:
        self._coding.set_agent_name(name)

    def convert(self, raw: list[dict[str, Any]]) -> ClaudeSDKSessionState:
        found = self._coding.convert(raw)
        return ClaudeSDKSessionState(
            "\n".join(found.transcript),
            found.session_id,
            transcript=found.transcript,
            session_metadata=found.session_metadata,
        )
