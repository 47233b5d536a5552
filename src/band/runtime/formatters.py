"""Text helpers for host code: mention tokens, history items, the roster text.

``replace_uuid_mentions`` turns the platform's ``@[[<id>]]`` tokens into ``@handle`` (or
``@Display-Name``); ``format_message_for_llm`` / ``format_history_for_llm`` build the raw
history items adapters' converters receive. They share the runtime's own functions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .history import build_participants_message, raw_history_item, rewrite_mentions

__all__ = [
    "build_participants_message",
    "format_history_for_llm",
    "format_message_for_llm",
    "format_tokens",
    "mention_label",
    "messages_before",
    "replace_uuid_mentions",
    "strip_leading_mentions",
]

_LEADING_MENTION = re.compile(r"^\s*@(\[\[[^\]]+\]\]|[\w.\-/]+)[,:]?\s*")


def _roster(participants: Iterable[Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    return {str(p["id"]): p for p in participants or () if p.get("id")}


def replace_uuid_mentions(content: str, participants: list[dict[str, Any]]) -> str:
    """``@[[<id>]]`` → ``@handle`` (or ``@Display-Name``) for known participants."""
    return rewrite_mentions(content, _roster(participants))


def mention_label(*, handle: str | None, name: str | None) -> str | None:
    """The whitespace-free label a participant is mentioned by, without ``@``."""
    if handle:
        return handle
    if name and name.strip():
        return "-".join(name.split())
    return None


def format_message_for_llm(
    msg: dict[str, Any], participants: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """One platform message as a raw history item (role, content, sender_name, ...)."""
    return raw_history_item(msg, _roster(participants))


def messages_before(messages: list[dict[str, Any]], message_id: str | None) -> list[dict[str, Any]]:
    """The prefix of ``messages`` strictly before ``message_id`` (all when absent)."""
    for index, item in enumerate(messages):
        if message_id is not None and item.get("id") == message_id:
            return messages[:index]
    return list(messages)


def format_history_for_llm(
    messages: list[dict[str, Any]],
    exclude_id: str | None = None,
    participants: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Raw history items for ``messages``, leaving out ``exclude_id``."""
    roster = _roster(participants)
    return [
        raw_history_item(m, roster)
        for m in messages
        if exclude_id is None or m.get("id") != exclude_id
    ]


def strip_leading_mentions(content: str, *, only_first: bool = False) -> str:
    """Drop the leading ``@handle`` / ``@[[id]]`` mention(s) from a message."""
    text = content
    while True:
        stripped = _LEADING_MENTION.sub("", text, count=1)
        if stripped == text or only_first:
            return stripped
        text = stripped


def format_tokens(tokens: Iterable[str]) -> str:
    """Tokens as a backticked, comma-separated list: ```a`, `b```."""
    return ", ".join(f"`{t}`" for t in tokens)
