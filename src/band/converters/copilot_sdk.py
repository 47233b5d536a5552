"""The history converter of ``CopilotSDKAdapter``: the room's Copilot session and its text.

The session id comes from the adapter's latest ``task`` event carrying
``copilot_session_id`` (one that sets it to null means none); the text is the room's
messages, one ``[Name]: text`` line each, injected into a new session when the saved one
cannot be resumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from band.adapters._coding.history import CodingHistoryConverter

from ._named import AgentNamed

__all__ = ["SESSION_ID_METADATA_KEY", "CopilotSDKHistoryConverter", "CopilotSDKSessionState"]

SESSION_ID_METADATA_KEY = "copilot_session_id"


@dataclass
class CopilotSDKSessionState:
    """The room's text history (``text``, a line per message) and the Copilot session to
    resume (``session_id``, None when there is none)."""

    text: str = ""
    session_id: str | None = None
    # The messages one by one (a message may span lines); read by the adapter.
    messages: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)

    @property
    def transcript(self) -> tuple[str, ...]:
        """The messages, each a ``[Name]: text`` entry (``text`` split when built by hand)."""
        return self.messages or tuple(line for line in self.text.splitlines() if line)


class CopilotSDKHistoryConverter(AgentNamed):
    """Room history → :class:`CopilotSDKSessionState` (``agent_name`` is kept for the
    converter protocol only: the agent's own lines are history too)."""

    def convert(self, raw: list[dict[str, Any]]) -> CopilotSDKSessionState:
        found = CodingHistoryConverter(SESSION_ID_METADATA_KEY).convert(raw)
        state = CopilotSDKSessionState("\n".join(found.transcript), found.session_id)
        state.messages = found.transcript
        return state
