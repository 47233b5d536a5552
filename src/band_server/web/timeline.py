"""A room's timeline as HTML: text messages in full, events folded to one line."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html import escape

from band.protocol import ChatMessage

from ..services.rooms import Member

MENTION = re.compile(r"@\[\[([0-9A-Za-z-]{1,64})\]\]")
SUMMARY_CHARS = 80


def show_mentions(content: str, handles: Mapping[str, str]) -> str:
    """``@[[uuid]]`` becomes ``@handle`` for known participants (plain text, not yet escaped)."""
    return MENTION.sub(lambda m: f"@{handles[m[1]]}" if m[1] in handles else m[0], content)


def event_label(item: ChatMessage) -> str:
    """The one-line label of an event: the tool's name for tool events, else the text's start."""
    if item.message_type in ("tool_call", "tool_result"):
        name = item.metadata.get("tool_name") or item.metadata.get("name")
        if not isinstance(name, str):
            try:
                parsed = json.loads(item.content)
            except ValueError:
                parsed = None
            name = parsed.get("name") if isinstance(parsed, dict) else None
        return name if isinstance(name, str) else ""
    first = item.content.strip().splitlines()[0] if item.content.strip() else ""
    return first[:SUMMARY_CHARS] + ("…" if len(first) > SUMMARY_CHARS else "")


def render_item(item: ChatMessage, handles: Mapping[str, str], names: Mapping[str, str]) -> str:
    """One ``<li>`` of the timeline; every piece of content is escaped."""
    who = escape(item.sender_name or names.get(item.sender_id) or item.sender_id)
    when = escape(item.inserted_at)
    kind = escape(item.message_type)
    body = escape(show_mentions(item.content, handles))
    attrs = f'data-id="{escape(item.id)}" data-seq="{item.seq or 0}"'
    if item.message_type == "text":
        return (
            f'<li class="msg" {attrs}><span class="who">{who}</span> '
            f'<time datetime="{when}">{when}</time><div class="body">{body}</div></li>'
        )
    label = escape(event_label(item))
    return (
        f'<li class="msg event event-{kind}" {attrs}><details><summary>'
        f'<span class="who">{who}</span> <span class="kind">{kind}</span> '
        f'<span class="label">{label}</span></summary><pre class="body">{body}</pre>'
        "</details></li>"
    )


def render_timeline(items: Sequence[ChatMessage], roster: Sequence[Member], room_id: str) -> str:
    """The ``<ol>`` the live script appends to (it reads the room id from ``data-room-id``)."""
    handles = {m.id: m.handle for m in roster}
    names = {m.id: m.name for m in roster}
    rows = "\n".join(render_item(i, handles, names) for i in items)
    empty = "" if items else '<li class="empty">No messages yet.</li>'
    return f'<ol id="timeline" data-room-id="{escape(room_id)}">{empty}{rows}</ol>'


def render_participants(roster: Sequence[Member]) -> str:
    """The participants list; the live script maps ids to handles from its data attributes."""
    rows = "".join(
        f'<li data-id="{escape(m.id)}" data-handle="{escape(m.handle)}" '
        f'data-name="{escape(m.name)}"><span class="who">{escape(m.name)}</span> '
        f'<span class="handle">@{escape(m.handle)}</span> '
        f'<span class="kind">{escape(m.type.lower())}</span></li>'
        for m in roster
    )
    return f'<ul id="participants">{rows}</ul>'
