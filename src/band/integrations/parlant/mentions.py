"""Mentions as Parlant tools take them: one comma-separated text, not a list."""

from __future__ import annotations

from typing import Any

from band.runtime.tools.roster import (
    MISSING_MENTIONS_ERROR,
    append_mention_handles_hint,
    available_mention_handles,
)

__all__ = ["missing_mentions_error", "split_mentions", "with_mention_handles"]


def split_mentions(mentions: str) -> list[str]:
    """``"@alice, @bob/agent"`` -> ``["@alice", "@bob/agent"]`` (blanks dropped)."""
    return [part.strip() for part in mentions.split(",") if part.strip()]


def with_mention_handles(message: str, tools: Any) -> str:
    """``message`` plus the handles this room offers, so the model can retry with one."""
    handles = available_mention_handles(tools.participants, getattr(tools, "agent_id", None))
    return append_mention_handles_hint(message, handles)


def missing_mentions_error(tools: Any) -> str:
    """The refusal of a message sent to no one, listing whom it could go to."""
    return "Error: " + with_mention_handles(MISSING_MENTIONS_ERROR, tools)
