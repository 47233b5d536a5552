"""Posting a room's messages and events (reading them: ``reading``, re-exported here).

Principal-agnostic: a person and an agent post through the same functions; the caller has
already checked membership (``rooms.room_for``). Writes run inside a :class:`UnitOfWork`, so the
``message_created`` broadcast goes out only after the commit.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from band_protocol import topic, tracing, utcnow
from band_protocol.messages import EventCreateFields, MessageCreateFields
from band_server.errors import ApiError, ValidationFailed
from band_server.fanout.broadcast import Broadcast, pushed
from band_server.json_text import Encoded
from band_server.services.delegation import exchange as delegation
from band_server.services.deliveries import push_claims
from band_server.services.deliveries.push_claims import PushClaims
from band_server.services.deliveries.rows import ATTEMPTS
from band_server.services.identity.principals import Principal
from band_server.services.messages.mentions import (
    ResolvedMention,
    normalise_content,
    resolve_mentions,
)
from band_server.services.messages.notices import notices
from band_server.services.messages.paging import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MessagePage,
    SortOrder,
    Window,
)
from band_server.services.messages.reading import (
    QueueStatus,
    agent_queue,
    context_messages,
    list_messages,
)
from band_server.services.rooms.files import attachments_for
from band_server.services.rooms.membership import Member, members
from band_server.services.unit import UnitOfWork
from band_server.services.views import (
    Posted,
    encoded_meta,
    event_answer,
    message_payload,
    message_payload_json,
    sent_answer,
)
from band_server.store import direct, room_seqs
from band_server.store.models import (
    Base,
    Delivery,
    Message,
    Room,
    new_ordered_id,
)

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "QUEUE_LIMIT",
    "MessagePage",
    "QueueStatus",
    "SortOrder",
    "Window",
    "agent_queue",
    "context_messages",
    "list_messages",
    "post_event",
    "post_message",
]

QUEUE_LIMIT = 20
_MESSAGES = Base.metadata.tables[Message.__tablename__]
_DELIVERIES = Base.metadata.tables[Delivery.__tablename__]
_ROOMS = Base.metadata.tables[Room.__tablename__]
# Built once: a statement whose values are bound per call hits SQLAlchemy's compiled cache
# without generating a cache key from scratch (measured in docs/decisions.md).
_NEXT_SEQ = (
    update(_ROOMS)
    .where(_ROOMS.c.id == bindparam("room_id"))
    .values(last_seq=_ROOMS.c.last_seq + 1, last_message_at=room_seqs.newest(room_seqs.AT))
    .returning(_ROOMS.c.last_seq)
)
_INSERT_MESSAGE = _MESSAGES.insert()
_INSERT_DELIVERIES = _DELIVERIES.insert()
_INSERT_ATTEMPTS = ATTEMPTS.insert()


# -- writing ----------------------------------------------------------------------------------


async def _incremented_seq(session: AsyncSession, room: Room, at: datetime) -> int:
    # Where no writer counts the room's seq in memory (SQLite's does: store.room_seqs), one
    # atomic increment: concurrent writers on PostgreSQL serialise on the room row (which
    # keeps its newest message's created_at too).
    seq = await direct.scalar(session, _NEXT_SEQ, {"room_id": room.id, "at": at})
    assert seq is not None  # nosec B101 # narrows for mypy; the room was loaded in this transaction
    set_committed_value(room, "last_seq", seq)
    return int(seq)


def _append(
    uow: UnitOfWork,
    room_id: str,
    seq: int,
    sender: Principal,
    message_type: str,
    content: str,
    meta: dict[str, Any],
    attachments: list[dict[str, Any]] | None,
    msg_id: str,
    now: datetime,
) -> tuple[Posted, Awaitable[None]]:
    """The message (the room's next ``seq``, taken by the caller), and its insert, which the
    caller awaits in the unit.

    A plain call, not a coroutine (a frame less each post): the insert is
    ``direct.execute``'s own awaitable, or, for a unit with an ``Idempotency-Key`` claim,
    :func:`_keyed_insert`."""
    values: dict[str, Any] = {
        "id": msg_id,
        "room_id": room_id,
        "seq": seq,
        "sender_id": sender.id,
        "sender_type": sender.sender_type,
        "sender_name": sender.name,
        "message_type": message_type,
        "content": content,
        "created_at": now,
        "updated_at": now,
    }
    if attachments:
        values["attachments"] = attachments
    row = {"metadata": meta, **values}
    # A Core insert: the ORM's unit-of-work flush costs more than the whole SQL statement on
    # this hot path. A keyed post's Idempotency-Key rides on its message (asked only of a
    # unit that has a claim: most have none).
    if uow.row_claim is None:
        insert = direct.execute(uow.session, _INSERT_MESSAGE, row)
    else:
        insert = _keyed_insert(uow, row)
    # (positional: the fields in their order, no keyword matching)
    posted = Posted(
        msg_id,
        room_id,
        seq,
        sender.id,
        sender.sender_type,
        sender.name,
        message_type,
        content,
        meta,
        now,
        now,
        attachments or None,
    )
    return posted, insert


async def _keyed_insert(uow: UnitOfWork, row: dict[str, Any]) -> None:
    """The message's insert with the Idempotency-Key's columns: the unique index is the
    claim."""
    key = uow.row_key()
    try:
        await direct.execute(uow.session, _INSERT_MESSAGE, {**row, **key})
    except IntegrityError:
        if key:
            raise uow.key_taken() from None
        raise


def _created(
    msg: Posted, agents: frozenset[str], statuses: dict[str, Any] | None = None
) -> Broadcast:
    """The ``message_created`` push; with ``statuses``, its metadata shows the deliveries the
    post opened (``push_claims``)."""
    meta = msg.meta
    if statuses is None:
        payload = message_payload(msg)
        text = message_payload_json(payload, meta.compact if type(meta) is Encoded else None)
    else:
        payload = message_payload(msg, {**meta, "delivery_status": statuses})
        text = message_payload_json(payload)
    return pushed(topic("chat_room", msg.room_id), "message_created", payload, agents, text)


async def _deliver(
    uow: UnitOfWork, msg: Posted, agent_ids: set[str], claims: PushClaims | None
) -> dict[str, Any] | None:
    """One delivery per mentioned agent, delivered as the message is posted (its instant);
    with ``claims``, those opened for sockets that asked (``push_claims``): then their
    statuses for the push, else None."""
    now = msg.created_at
    rows: list[dict[str, Any]] = []
    for agent in sorted(agent_ids):
        rows.append(
            {
                "message_id": msg.id,
                "room_id": msg.room_id,
                "agent_id": agent,
                "seq": msg.seq,
                "delivered_at": now,
                "updated_at": now,
            }
        )
    modes = None if claims is None else push_claims.asking(claims, msg.room_id, agent_ids)
    taken = await push_claims.take(uow.session, msg.room_id, modes) if modes else None
    if claims is None or not taken:
        await direct.execute(uow.session, _INSERT_DELIVERIES, rows)
        return None
    attempts = push_claims.opened_rows(rows, taken, now)
    await direct.execute(uow.session, _INSERT_DELIVERIES, rows)
    await direct.execute(uow.session, _INSERT_ATTEMPTS, attempts)
    push_claims.after_commit(uow, claims, msg.room_id, msg.id, taken)
    return push_claims.statuses(rows, taken)


async def _agent_chain_length(session: AsyncSession, room: Room) -> int:
    """Text messages sent by agents since the last text a person sent in the room."""
    last_person = (
        select(func.coalesce(func.max(Message.seq), 0))
        .where(
            Message.room_id == room.id,
            Message.sender_type == "User",
            Message.message_type == "text",
        )
        .scalar_subquery()
    )
    count = await session.scalar(
        select(func.count())
        .select_from(Message)
        .where(
            Message.room_id == room.id,
            Message.sender_type == "Agent",
            Message.message_type == "text",
            Message.seq > last_person,
        )
    )
    return int(count or 0)


async def _check_loop_guard(
    session: AsyncSession, room: Room, routed: Sequence[ResolvedMention], limit: int | None
) -> None:
    if limit is None or not any(m.member.type == "Agent" for m in routed):
        return
    if await _agent_chain_length(session, room) >= limit:
        raise ApiError(
            f"Agent-to-agent loop limit reached: {limit} agent messages in a row without a "
            "person posting; a person must post before agents can mention agents again",
            code="loop_limit_reached",
            status_code=422,
            details={"/message/mentions": ["agent-to-agent loop limit reached"]},
        )


async def post_message(
    uow: UnitOfWork,
    sender: Principal,
    room: Room,
    fields: MessageCreateFields,
    *,
    loop_limit: int | None = None,
    roster: Sequence[Member] | None = None,
    claims: PushClaims | None = None,
) -> dict[str, Any]:
    """Post a text message: the message (its mentions in its metadata) and one delivery per
    mentioned agent, which is also how the agent's context finds the texts that mention it.

    Returns the answer's data, ``MessageSentResponse``'s JSON (built straight: the model and
    its dump cost more than the dict, on every post).

    Agents must mention at least one other participant; people may post without mentions.
    Every mention must name an active participant of the room, else 422
    ``mentioned_participant_not_in_room``. Only the mentioned agents' sockets get the push.
    With ``loop_limit``, an agent may not mention another agent once that many agent texts
    follow the last person's text (the loop guard; people are never limited). With
    ``claims``, the agents whose sockets ask for it get their claim with the push
    (``deliveries.push_claims``).
    """
    if not fields.content.strip():
        raise ValidationFailed("content can't be blank", {"/message/content": ["can't be blank"]})
    attachments = (
        await attachments_for(uow.session, room, fields.attachment_ids)
        if fields.attachment_ids
        else None
    )
    if roster is None:
        roster = await members(uow.session, room.id)
    resolved = resolve_mentions(sender.id, roster, fields.mentions)
    # One pass for what the post needs of its mentions (each comprehension is a call of its
    # own on this interpreter): the metadata's items, the routed ones, their members, the
    # agents among them (one delivery each), the answer's recipients.
    items: list[dict[str, Any]] = []
    routed: list[ResolvedMention] = []
    mentioned: list[Member] = []
    agent_ids: set[str] = set()
    recipients: list[dict[str, Any]] = []
    for mention in resolved:
        items.append(mention.metadata())
        if mention.routes:
            routed.append(mention)
            member = mention.member
            mentioned.append(member)
            recipients.append(mention.recipient())
            if member.type == "Agent":
                agent_ids.add(member.id)
    is_agent = sender.is_agent  # (a property: read once)
    if is_agent and not routed:
        raise ValidationFailed(
            "a message must mention at least one other participant",
            {"/message/mentions": ["must mention at least one other participant"]},
        )
    if is_agent:
        await _check_loop_guard(uow.session, room, routed, loop_limit)
    meta: dict[str, Any] = {"mentions": items, "status": "sent"}
    if fields.turn_id and is_agent:  # the reply's turn (deliveries.turns)
        meta["turn_id"] = fields.turn_id
    if tracing.TRACING.on:  # the web app links a message's deliveries to its trace
        meta["trace_id"] = tracing.trace_id()
    msg_id, now = new_ordered_id(), utcnow()
    sealed = delegation.envelope(sender, mentioned, msg_id, now)
    if sealed is None and is_agent:
        sealed = await delegation.forwarding_marker(uow.session, sender, room.id, mentioned)
    if sealed is not None:
        meta["delegation"] = sealed
    content = normalise_content(fields.content, resolved, roster)
    meta = encoded_meta(meta)  # its texts written once, from its parts (views)
    room_id = room.id  # (an ORM attribute: a call each time it is read)
    seq = room_seqs.next_seq(uow.session, room_id, now)  # SQLite's, in memory: no coroutine
    if seq is None:
        seq = await _incremented_seq(uow.session, room, now)
    msg, insert = _append(
        uow, room_id, seq, sender, "text", content, meta, attachments, msg_id, now
    )
    await insert
    shown = await _deliver(uow, msg, agent_ids, claims) if agent_ids else None
    created = _created(msg, frozenset(agent_ids), shown)
    uow.broadcasts.append(created)  # (``uow.emit``, without its argument tuple)
    for notice in notices(sender.id, is_agent, resolved, roster, created.payload):
        uow.emit(notice)  # the people to notify wherever they are (messages.notices)
    return sent_answer(msg.id, recipients)


async def post_event(
    uow: UnitOfWork, sender: Principal, room: Room, fields: EventCreateFields
) -> dict[str, Any]:
    """Post an event (thought, tool call, ...): stored in the room, never delivered to agents.

    Returns the answer's data, ``EventCreatedResponse``'s JSON (built straight, as a post's)."""
    if not fields.content.strip():
        raise ValidationFailed("content can't be blank", {"/event/content": ["can't be blank"]})
    meta = dict(fields.metadata or {})
    meta.pop("delegation", None)  # minted by the platform only, never taken from a client
    room_id, now = room.id, utcnow()
    seq = room_seqs.next_seq(uow.session, room_id, now)
    if seq is None:
        seq = await _incremented_seq(uow.session, room, now)
    msg, insert = _append(
        uow,
        room_id,
        seq,
        sender,
        fields.message_type,
        fields.content,
        meta,
        None,
        new_ordered_id(),
        now,
    )
    await insert
    uow.emit(_created(msg, frozenset()))
    return event_answer(msg.id, msg.message_type)
