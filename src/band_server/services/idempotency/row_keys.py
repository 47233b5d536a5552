"""A keyed speech post's ``Idempotency-Key`` rides on its own message: no record row.

How it works: docs/internals/server.md, "Keys on speech posts".

The message's insert is the claim, and a replay is rebuilt from the row.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import EventCreatedResponse, MessageSentResponse, utcnow
from band_protocol.messages import Recipient
from band_server.services.idempotency.records import (
    ABANDONED,
    IN_FLIGHT,
    SWEEP_EVERY,
    TTL,
    Claimed,
    Fingerprint,
    Outcome,
    Replay,
    Reused,
    answer_text,
    aware,
)
from band_server.services.idempotency.records import lookup as lookup_record
from band_server.store.db import Database
from band_server.store.models import Base, IdempotencyRecord, Message

STATUS = 201
"""What every speech post answers (a test checks the routes say so)."""

_MESSAGES = Base.metadata.tables[Message.__tablename__]
_RECORDS = Base.metadata.tables[IdempotencyRecord.__tablename__]
_HOLDER = select(
    _MESSAGES.c.id,
    _MESSAGES.c.room_id,
    _MESSAGES.c.sender_id,
    _MESSAGES.c.message_type,
    _MESSAGES.c.metadata,
    _MESSAGES.c.idem_body,
    _MESSAGES.c.created_at,
).where(_MESSAGES.c.idem_key == bindparam("key_id"))
_CLEARED = {"idem_key": None, "idem_body": None, "updated_at": _MESSAGES.c.updated_at}
_RELEASE = (
    update(_MESSAGES)
    .where(_MESSAGES.c.idem_key == bindparam("key_id"), _MESSAGES.c.created_at <= bindparam("cut"))
    .values(_CLEARED)
)
_SWEEP = (
    update(_MESSAGES)
    .where(_MESSAGES.c.idem_key.is_not(None), _MESSAGES.c.created_at <= bindparam("cut"))
    .values(_CLEARED)
)


def columns(fp: Fingerprint) -> dict[str, str]:
    """The key's columns on the message a keyed speech post inserts."""
    return {"idem_key": fp.key, "idem_body": fp.body_hash}


def _same_request(fp: Fingerprint, room_id: str, sender_id: str, message_type: str) -> bool:
    # The route's path is ``.../chats/{chat_id}/messages`` or ``.../chats/{chat_id}/events``.
    _, chat_id, last = fp.path.rsplit("/", 2)
    text = last == "messages"
    return (
        fp.method == "POST"
        and sender_id == fp.principal_id
        and chat_id == room_id
        and text == (message_type == "text")
    )


def answer(message_id: str, message_type: str, meta: dict[str, Any] | None) -> str:
    """The answer a speech post gave, from its message: the route's own models and JSON."""
    body: MessageSentResponse | EventCreatedResponse
    if message_type == "text":
        mentions = (meta or {}).get("mentions") or []
        recipients = [
            Recipient(id=m["id"], handle=m["handle"], name=m.get("name"))
            for m in mentions
            if m.get("kind") != "reference"
        ]
        body = MessageSentResponse(id=message_id, recipients=recipients)
    else:
        body = EventCreatedResponse(id=message_id, message_type=message_type)
    return answer_text({"data": body.model_dump(mode="json")})


async def lookup(db: Database, fp: Fingerprint) -> Outcome:
    """What holds a speech post's key: its message (replay, reused, or expired: ``Claimed``),
    else a record from before the keys moved to the rows, else nothing (``Claimed(fresh)``)."""
    row = await db.peek(_HOLDER, {"key_id": fp.key})
    if row is None:
        return await lookup_record(db, fp)
    message_id, room_id, sender_id, message_type, meta, body_hash, created_at = row
    if aware(created_at) <= utcnow() - TTL:
        return Claimed()
    if body_hash != fp.body_hash or not _same_request(fp, room_id, sender_id, message_type):
        return Reused()
    return Replay(STATUS, answer(message_id, message_type, meta))


async def release(db: Database, fp: Fingerprint) -> None:
    """Free an expired key (on its message, or an expired or abandoned record from before),
    so the retry that found it may post."""
    now = utcnow()
    async with db.write() as session:
        await session.execute(_RELEASE, {"key_id": fp.key, "cut": now - TTL})
        await session.execute(
            delete(_RECORDS).where(
                _RECORDS.c.principal_id == fp.principal_id,
                _RECORDS.c.key == fp.key,
                (_RECORDS.c.created_at <= now - TTL)
                | (
                    (_RECORDS.c.status_code == IN_FLIGHT)
                    & (_RECORDS.c.created_at <= now - ABANDONED)
                ),
            )
        )


_last_sweep: list[datetime] = []


def sweep_due(now: datetime) -> bool:
    """True at this node's first keyed speech post, then once per ``SWEEP_EVERY``."""
    if _last_sweep and now - _last_sweep[0] < SWEEP_EVERY:
        return False
    _last_sweep[:] = [now]
    return True


async def sweep(session: AsyncSession, now: datetime) -> None:
    """Clear the keys of messages older than a day (their replays are over)."""
    await session.execute(_SWEEP, {"cut": now - TTL})


async def legacy_until(db: Database, paths: re.Pattern[str]) -> datetime:
    """Until when a record written before migration 0010 may still hold a speech post's key
    (now, if none does)."""
    now = utcnow()
    async with db.read() as session:
        rows = await session.execute(
            select(_RECORDS.c.path, _RECORDS.c.created_at).where(_RECORDS.c.created_at > now - TTL)
        )
        found = [aware(created) + TTL for path, created in rows if paths.fullmatch(path)]
    return max(found, default=now)
