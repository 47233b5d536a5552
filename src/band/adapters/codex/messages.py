"""A Codex turn's agent messages and its outcome, as the adapter tracks them.

Codex streams an agent message in deltas and then completes it with its authoritative
text; what was already shown in the room (commentary streamed as thoughts) is not repeated.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["NativeMessage", "TurnResult"]


@dataclass
class NativeMessage:
    """One agent-message item: its ``phase`` (``commentary``, ``final_answer``, ...), the
    text already streamed to the room, and the completed text once Codex sends it."""

    phase: str | None = None
    streamed_text: str = ""
    completed_text: str | None = None

    @property
    def unstreamed_text(self) -> str:
        """The completed text not yet shown: all of it, unless it continues what was
        streamed (then only the rest)."""
        text = self.completed_text or ""
        if text.startswith(self.streamed_text):
            return text[len(self.streamed_text) :]
        return text


@dataclass
class TurnResult:
    """How one Codex turn ended: its agent messages by item id, its status
    (``completed``, ``interrupted``, ``failed``, ``timed_out``) and its error text."""

    native_messages: dict[str, NativeMessage] = field(default_factory=dict)
    turn_status: str = "failed"
    turn_error: str = ""
