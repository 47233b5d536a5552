"""An archive's messages written into their imported rooms, and the id rewriting every
imported record goes through.

Each message keeps its room's ``seq``, its author, its times and its content; ids it names
(``@[[id]]`` tokens, mentions, task ids in metadata) become what they were imported as. A
text's mention of an agent makes a delivery already ``processed`` (imported history is never a
new turn): the agent's context finds the texts that mention it by their deliveries. The room's
``last_seq`` moves past the highest ``seq``, so a post after the import continues the sequence.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, case, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow
from band_protocol.archive import MessageRecord
from band_server.errors import Conflict
from band_server.services.rooms.files import file_view
from band_server.store import room_seqs
from band_server.store.models import (
    Base,
    Delivery,
    Message,
    Participant,
    Room,
    RoomFile,
)
from band_server.store.models import new_id as _new_id

__all__ = ["instant", "remap", "write_messages"]

TOKEN = re.compile(r"@\[\[([^\[\]]{1,200})\]\]")
DERIVED_METADATA = ("delivery_status", "delegation")  # read views and platform-minted seals
_TABLES = Base.metadata.tables


def remap(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with every source id (whole strings and ``@[[id]]`` tokens) rewritten."""
    if isinstance(value, str):
        if value in ids:
            return ids[value]
        if "@[[" in value:
            return TOKEN.sub(lambda m: f"@[[{ids.get(m[1], m[1])}]]", value)
        return value
    if isinstance(value, dict):
        return {k: remap(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [remap(v, ids) for v in value]
    return value


def instant(text: str | None) -> datetime:
    """An archive's ISO-8601 time (``Z`` or an offset); now when absent or unreadable."""
    if not text:
        return utcnow()
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return utcnow()
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


async def write_messages(
    session: AsyncSession, ids: dict[str, str], recs: list[MessageRecord]
) -> list[str]:
    """Insert a batch of messages (and their deliveries); their new ids."""
    rows: list[dict[str, Any]] = []
    deliveries: list[dict[str, Any]] = []
    tops: dict[str, int] = {}
    agents: dict[str, set[str]] = {}  # each room's agents, read once
    for rec in recs:
        room_id = ids.get(rec.chat_room_id, "")
        if room_id not in agents:
            if await session.get(Room, room_id) is None:
                raise Conflict(
                    f"the room {rec.chat_room_id} was not imported yet: send the archive's "
                    "records in order",
                    code="import_out_of_order",
                )
            agents[room_id] = await _room_agents(session, room_id)
        meta = remap({k: v for k, v in rec.metadata.items() if k not in DERIVED_METADATA}, ids)
        created = instant(rec.inserted_at)
        row = {
            "id": _new_id(),
            "room_id": room_id,
            "seq": rec.seq,
            "sender_id": ids.get(rec.sender_id, rec.sender_id),
            "sender_type": rec.sender_type,
            "sender_name": rec.sender_name,
            "message_type": rec.message_type[:16],
            "content": remap(rec.content, ids),
            "metadata": meta,
            "attachments": await _attachments(session, ids, rec.attachments) or None,
            "created_at": created,
            "updated_at": instant(rec.updated_at),
        }
        rows.append(row)
        tops[room_id] = max(tops.get(room_id, 0), rec.seq)
        if rec.message_type != "text":
            continue
        mentioned = [m.get("id") for m in meta.get("mentions") or [] if isinstance(m, dict)]
        for pid in dict.fromkeys(p for p in mentioned if p in agents[room_id]):
            deliveries.append(_processed(row, pid, created))
    # Table inserts: the rows are keyed by column ("metadata"), not by attribute.
    if rows:
        await session.execute(_TABLES[Message.__tablename__].insert(), rows)
    if deliveries:
        await session.execute(_TABLES[Delivery.__tablename__].insert(), deliveries)
    for room_id, top in tops.items():
        room_seqs.settle(session, room_id)  # the writer's count in memory, written first
        await session.execute(
            update(Room)
            .where(Room.id == room_id)
            .values(last_seq=case((Room.last_seq < top, top), else_=Room.last_seq))
        )
    if rows:  # each room's last activity: the newest created_at, compared as stored
        await session.execute(
            update(_TABLES[Room.__tablename__])
            .where(_TABLES[Room.__tablename__].c.id == bindparam("room"))
            .values(last_message_at=room_seqs.newest(room_seqs.AT)),
            [{"room": row["room_id"], "at": row["created_at"]} for row in rows],
        )
    return [row["id"] for row in rows]


async def _attachments(
    session: AsyncSession, ids: dict[str, str], items: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The imported files' own descriptors (a file the archive lacked is left out)."""
    out = []
    for item in items:
        row = await session.get(RoomFile, ids.get(str(item.get("id")), ""))
        if row is not None:
            out.append(file_view(row).model_dump(mode="json"))
    return out


def _processed(row: dict[str, Any], agent_id: str, at: datetime) -> dict[str, Any]:
    return {
        "id": _new_id(),
        "message_id": row["id"],
        "room_id": row["room_id"],
        "agent_id": agent_id,
        "seq": row["seq"],
        "status": "processed",
        "attempt_number": 1,
        "delivered_at": at,
        "processed_at": at,
        "updated_at": at,
    }


async def _room_agents(session: AsyncSession, room_id: str) -> set[str]:
    rows = await session.scalars(
        select(Participant.participant_id).where(
            Participant.room_id == room_id, Participant.participant_type == "Agent"
        )
    )
    return set(rows)
