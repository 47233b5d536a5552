"""Room history for coding agents: the provider session to resume, and a replay transcript.

The session id lives in the metadata of the agent's own ``task`` events (the latest wins;
one that sets it to null, posted when a session is archived, means "no session"). The
transcript is the room's text messages as ``[Name]: text`` lines, injected into a new
session when the old one cannot be resumed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from band.converters._named import AgentNamed
from band.converters.helpers import build_replay_messages, task_metadata

__all__ = ["CodingHistory", "CodingHistoryConverter", "as_coding_history", "history_block"]


@dataclass(frozen=True)
class CodingHistory:
    """What a bootstrap hands a coding adapter."""

    session_id: str | None = None
    transcript: tuple[str, ...] = field(default_factory=tuple)
    session_metadata: dict[str, Any] = field(default_factory=dict)


class CodingHistoryConverter(AgentNamed):
    """Reads ``metadata[session_key]`` (latest ``task`` event) and the text transcript."""

    def __init__(self, session_key: str, agent_name: str = "") -> None:
        super().__init__(agent_name)
        self.session_key = session_key

    def convert(self, raw: list[dict[str, Any]]) -> CodingHistory:
        session_id: str | None = None
        found: dict[str, Any] = {}
        for item in raw:
            metadata = task_metadata(item)
            if metadata is None:
                continue
            if self.session_key in metadata:
                value = metadata[self.session_key]
                if value is None:
                    session_id, found = None, {}
                elif isinstance(value, str) and value:
                    session_id, found = value, dict(metadata)
        return CodingHistory(session_id, tuple(build_replay_messages(raw)), found)


def as_coding_history(value: Any, room_id: str) -> CodingHistory:
    """What a history converter gave, as ``CodingHistory``: band-sdk's session states
    (``CodexSessionState``'s ``thread_id``; ``ACPClientSessionState``'s ``room_to_session``
    and ``replay_messages``; a ``session_id`` with a ``transcript`` or ``replay_messages``, as
    ``OpencodeSessionState`` and ``CopilotSDKSessionState``) are read too, so their converters
    can be handed to our adapters."""
    if isinstance(value, CodingHistory):
        return value
    own = getattr(value, "coding_history", None)
    if callable(own):  # a session state of ours that knows its coding history
        found = own()
        if isinstance(found, CodingHistory):
            return found
    if hasattr(value, "room_to_session"):
        session = (getattr(value, "room_to_session", None) or {}).get(room_id)
        lines = tuple(getattr(value, "replay_messages", None) or ())
        return CodingHistory(session, lines)
    if hasattr(value, "session_id"):  # OpencodeSessionState, CopilotSDKSessionState
        session = getattr(value, "session_id", None)
        found = getattr(value, "transcript", None) or getattr(value, "replay_messages", None)
        return CodingHistory(session if isinstance(session, str) else None, tuple(found or ()))
    thread = getattr(value, "thread_id", None)
    return CodingHistory(thread if isinstance(thread, str) and thread else None)


def history_block(transcript: tuple[str, ...], limit: int) -> str | None:
    """The last ``limit`` transcript lines under a ``[Conversation History]`` header."""
    lines = transcript[-limit:] if limit > 0 else ()
    if not lines:
        return None
    body = "\n".join(lines)
    return (
        "[Conversation History]\nEarlier messages in this room (read-only context; do not "
        f"answer them again):\n{body}\n[End of Conversation History]"
    )
