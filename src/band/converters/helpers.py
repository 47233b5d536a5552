"""Small pieces the history converters share: optional text, ISO timestamps, replay lines,
and the metadata of the ``task`` events adapters record their state in."""

from __future__ import annotations

from datetime import datetime
from typing import Any

__all__ = ["build_replay_messages", "optional_str", "parse_iso_datetime", "task_metadata"]


def optional_str(value: Any) -> str | None:
    """``str(value)``, or None for None."""
    return None if value is None else str(value)


def parse_iso_datetime(value: Any) -> datetime | None:
    """An ISO-8601 text as a ``datetime``; None for anything else or an unreadable text."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def task_metadata(item: dict[str, Any]) -> dict[str, Any] | None:
    """A ``task`` event's metadata (``{}`` when it has none); None for any other message, or
    metadata that is not a dict."""
    metadata = item.get("metadata") or {}
    if item.get("message_type") != "task" or not isinstance(metadata, dict):
        return None
    return metadata


def build_replay_messages(raw: list[dict[str, Any]]) -> list[str]:
    """The room's text messages as ``[sender]: content`` lines, oldest first.

    A coding agent whose earlier session cannot be resumed is given these lines as context.
    Events (tool calls, thoughts, tasks) are left out; a message without a type is text; the
    sender is the name, else the sender type, else ``Unknown``.
    """
    lines: list[str] = []
    for item in raw:
        if item.get("message_type", "text") != "text":
            continue
        content = optional_str(item.get("content"))
        if not content or not content.strip():
            continue
        sender = (
            optional_str(item.get("sender_name"))
            or optional_str(item.get("sender_type"))
            or "Unknown"
        )
        lines.append(f"[{sender}]: {content}")
    return lines
