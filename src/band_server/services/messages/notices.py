"""The pushes a person gets wherever they are in the web app: a text that mentions them (an
agent's answer to them is a ``reply``: agents address whom they answer), or any text in a
direct room of theirs (the person and one other), goes to their own
``user_notifications:<id>`` topic as well as to the room's, so the page they have open (search,
settings, another room) can notify them without following every room. Only people get them;
never the sender; the room's level ("none") is applied by the page, which knows it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from band_protocol import topic
from band_server.fanout.broadcast import Broadcast, pushed
from band_server.services.messages.mentions import ResolvedMention
from band_server.services.rooms.membership import Member

KIND = "user_notifications"
EVENT = "notification"


def notices(
    sender_id: str,
    sender_is_agent: bool,
    resolved: Sequence[ResolvedMention],
    roster: Sequence[Member],
    payload: dict[str, Any],
) -> list[Broadcast]:
    """One push per person to notify of this text (``payload`` is the message's), with why:
    ``mention``, ``reply`` (an agent's text mentioning them) or ``direct``."""
    # Loops, not comprehensions: each is a call of its own on this interpreter, and most
    # posts (a mention of an agent in a shared room) notify nobody.
    named = "reply" if sender_is_agent else "mention"
    why: dict[str, str] = {}
    for m in resolved:
        member = m.member
        if m.routes and member.type == "User" and member.id != sender_id:
            why[member.id] = named
    if len(roster) == 2:
        for member in roster:
            if member.type == "User" and member.id != sender_id:
                why.setdefault(member.id, "direct")
    pushes: list[Broadcast] = []
    for person, reason in why.items():
        pushes.append(
            pushed(
                topic(KIND, person),
                EVENT,
                {"reason": reason, "message": payload},
                frozenset(),
                None,
            )
        )
    return pushes
