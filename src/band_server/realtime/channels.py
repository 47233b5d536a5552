"""Who may join which topic.

An agent may join its own ``agent_control``, ``agent_rooms`` and ``agent_contacts`` topics, and
``chat_room`` / ``room_participants`` of rooms it actively participates in. A person may join
their own ``user_rooms`` and ``user_notifications`` and the room topics of their rooms.
Everything else is refused with the same reason, so a refusal never tells a caller whether a
room or agent exists.
"""

from __future__ import annotations

from band_protocol import split_topic

from ..errors import ApiError
from ..services.identity.principals import Principal
from ..services.rooms.membership import room_for
from ..store.db import Database

REFUSED = "unauthorized"
MAX_TOPIC_CHARS = 200

_AGENT_OWN = frozenset({"agent_control", "agent_rooms", "agent_contacts"})
_USER_OWN = frozenset({"user_rooms", "user_notifications"})
_ROOM = frozenset({"chat_room", "room_participants"})


def room_of(topic: str) -> str | None:
    """The room id of a ``chat_room`` or ``room_participants`` topic, else None."""
    parts = split_topic(topic)
    if parts is None or parts[0] not in _ROOM:
        return None
    return parts[1]


def may_join_own(principal: Principal, topic: str) -> bool:
    """Authorise the principal-scoped topics (no database access needed)."""
    if len(topic) > MAX_TOPIC_CHARS:
        return False
    parts = split_topic(topic)
    if parts is None:
        return False
    kind, ident = parts
    own = _AGENT_OWN if principal.is_agent else _USER_OWN
    return kind in own and ident == principal.id


async def may_join(db: Database, principal: Principal, topic: str) -> bool:
    """Whether ``principal`` may subscribe to ``topic`` right now.

    Only room topics cost a (read) database session; the rest is decided from the key alone.
    """
    if len(topic) > MAX_TOPIC_CHARS:
        return False
    room_id = room_of(topic)
    if room_id is None:
        return may_join_own(principal, topic)
    async with db.read() as session:
        try:
            # room_for refuses deleted rooms and rooms the caller is not an active member of.
            await room_for(session, principal, room_id)
        except ApiError:
            return False
    return True
