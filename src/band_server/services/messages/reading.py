"""Reading a room's messages: its timeline, an agent's context and an agent's work queue.

Keyset-paged by sequence (``paging``); each message carries its delivery status. The caller has
already checked membership (``rooms.room_for``).
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import and_, exists, or_
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.services.messages.paging import MessagePage, Window, page_of
from band_server.store.models import Delivery, Message, Room

__all__ = ["QueueStatus", "agent_queue", "context_messages", "list_messages"]


async def list_messages(session: AsyncSession, room: Room, window: Window) -> MessagePage:
    """Every message and event of the room, keyset-paged by sequence (offset paging if asked).

    Each message carries ``metadata.delivery_status`` for all its recipients.
    """
    return await page_of(session, [Message.room_id == room.id], window, agent_id=None)


async def context_messages(
    session: AsyncSession, room: Room, agent_id: str, window: Window
) -> MessagePage:
    """An agent's context: what it sent (any type) plus the texts mentioning it, which are
    the texts delivered to it (a text mentioning an agent is delivered to it, and only such).

    Delivery status is limited to the agent's own deliveries (enough to skip replays).
    """
    mentioned = exists().where(Delivery.message_id == Message.id, Delivery.agent_id == agent_id)
    where = [
        Message.room_id == room.id,
        or_(Message.sender_id == agent_id, and_(Message.message_type == "text", mentioned)),
    ]
    return await page_of(session, where, window, agent_id=agent_id)


QueueStatus = Literal["pending", "processing", "processed", "failed", "all"]

_QUEUE_STATUSES: dict[str | None, tuple[str, ...]] = {
    None: ("delivered", "processing", "failed"),
    "pending": ("delivered", "failed"),
    "processing": ("processing",),
    "processed": ("processed",),
    "failed": ("failed",),
    "all": ("delivered", "processing", "processed", "failed"),
}


async def agent_queue(
    session: AsyncSession,
    room: Room,
    agent_id: str,
    window: Window,
    *,
    status: QueueStatus | None = None,
) -> MessagePage:
    """The agent's deliveries in the room (its work queue), by delivery status.

    Without ``status``: everything not processed (what ``/next`` would serve, in order);
    ``pending`` is delivered or failed; ``all`` is every delivery. Events and messages that
    do not mention the agent never appear (the official client claims what it is given).
    """
    addressed = exists().where(
        Delivery.message_id == Message.id,
        Delivery.agent_id == agent_id,
        Delivery.status.in_(_QUEUE_STATUSES[status]),
    )
    found = await page_of(
        session, [Message.room_id == room.id, addressed], window, agent_id=agent_id
    )
    if status is not None:
        found.metadata["status_filter"] = status
    return found
