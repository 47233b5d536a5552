"""Agent memories: stored by one agent, seen only by that agent and its owner.

Listing is newest first with an opaque keyset cursor; offset paging is kept for old clients.
Supersede and archive are soft: the row stays, only its status changes.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Select, and_, delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import AgentMemory, utcnow
from band_protocol.contacts import MemoryCreateFields
from band_server.errors import NotFound, ValidationFailed
from band_server.services.identity.principals import Principal
from band_server.services.views import from_row
from band_server.store.models import Agent, Memory

SYSTEMS: dict[str, tuple[str, ...]] = {
    "sensory": ("iconic", "echoic", "haptic"),
    "working": ("episodic", "semantic", "procedural"),
    "long_term": ("episodic", "semantic", "procedural"),
}
SEGMENTS = ("user", "agent", "tool", "guideline")
SCOPES = ("agent", "subject", "organization")
STATUSES = ("active", "superseded", "archived")


@dataclass(frozen=True)
class MemoryFilters:
    """What ``GET .../memories`` narrows by; ``None`` (or ``all``) means no filter."""

    scope: str | None = None
    system: str | None = None
    type: str | None = None
    segment: str | None = None
    subject_id: str | None = None
    status: str | None = "active"
    content_query: str | None = None


@dataclass(frozen=True)
class MemoryPage:
    items: list[AgentMemory]
    has_more: bool
    next_cursor: str | None


def memory_view(row: Memory) -> AgentMemory:
    return from_row(AgentMemory, row, metadata=dict(row.meta or {}), agent_id=row.owner_id)


def validate_fields(fields: MemoryCreateFields) -> None:
    """Refuse values outside the documented vocabularies (422 with pointers)."""
    errors: dict[str, list[str]] = {}
    if not fields.content.strip():
        errors["/memory/content"] = ["can't be blank"]
    if fields.system not in SYSTEMS:
        errors["/memory/system"] = [f"must be one of {', '.join(SYSTEMS)}"]
    elif fields.type not in SYSTEMS[fields.system]:
        allowed = ", ".join(SYSTEMS[fields.system])
        errors["/memory/type"] = [f"must be one of {allowed} for system {fields.system}"]
    if fields.segment not in SEGMENTS:
        errors["/memory/segment"] = [f"must be one of {', '.join(SEGMENTS)}"]
    if fields.scope not in SCOPES:
        errors["/memory/scope"] = [f"must be one of {', '.join(SCOPES)}"]
    elif fields.scope == "subject" and not fields.subject_id:
        errors["/memory/subject_id"] = ["is required when scope is subject"]
    if errors:
        raise ValidationFailed(next(iter(errors.items()))[1][0], errors)


async def create_memory(
    session: AsyncSession, agent: Principal, fields: MemoryCreateFields
) -> AgentMemory:
    validate_fields(fields)
    row = Memory(
        owner_id=agent.id,
        owner_type=agent.sender_type,
        content=fields.content,
        system=fields.system,
        type=fields.type,
        segment=fields.segment,
        scope=fields.scope,
        thought=fields.thought,
        subject_id=fields.subject_id,
        meta=dict(fields.metadata or {}),
    )
    session.add(row)
    await session.flush()
    return memory_view(row)


async def owner_ids(session: AsyncSession, me: Principal) -> list[str]:
    """Whose memories the caller may see: an agent its own; a person those of all its agents
    (deleted ones included, so nothing an agent stored is hidden from its owner)."""
    if me.is_agent:
        return [me.id]
    return list(await session.scalars(select(Agent.id).where(Agent.owner_id == me.id)))


def encode_cursor(row: Memory) -> str:
    raw = f"{row.created_at.isoformat()}|{row.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        stamp, _, row_id = base64.urlsafe_b64decode(padded).decode().partition("|")
        if not row_id:
            raise ValueError("no id")
        return datetime.fromisoformat(stamp), row_id
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]}) from exc


def _filtered(query: Select[Memory], f: MemoryFilters) -> Select[Memory]:
    for column, value in (
        (Memory.scope, f.scope),
        (Memory.system, f.system),
        (Memory.type, f.type),
        (Memory.segment, f.segment),
        (Memory.subject_id, f.subject_id),
        (Memory.status, f.status),
    ):
        if value and value != "all":
            query = query.where(column == value)
    if f.content_query:
        escaped = f.content_query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        query = query.where(Memory.content.ilike(f"%{escaped}%", escape="\\"))
    return query


async def list_memories(
    session: AsyncSession,
    me: Principal,
    filters: MemoryFilters,
    *,
    limit: int,
    cursor: str | None = None,
    offset: int = 0,
) -> MemoryPage:
    """Newest first. ``cursor`` continues after the last row seen; ``offset`` is legacy paging."""
    query = _filtered(
        select(Memory).where(Memory.owner_id.in_(await owner_ids(session, me))), filters
    )
    if cursor:
        stamp, row_id = decode_cursor(cursor)
        query = query.where(
            or_(Memory.created_at < stamp, and_(Memory.created_at == stamp, Memory.id < row_id))
        )
    elif offset:
        query = query.offset(offset)
    rows = list(
        await session.scalars(
            query.order_by(Memory.created_at.desc(), Memory.id.desc()).limit(limit + 1)
        )
    )
    has_more = len(rows) > limit
    rows = rows[:limit]
    return MemoryPage(
        [memory_view(r) for r in rows], has_more, encode_cursor(rows[-1]) if has_more else None
    )


async def _visible(session: AsyncSession, me: Principal, memory_id: str) -> Memory:
    row = await session.get(Memory, memory_id)
    if row is None or row.owner_id not in await owner_ids(session, me):
        raise NotFound("Memory not found")
    return row


async def get_memory(session: AsyncSession, me: Principal, memory_id: str) -> AgentMemory:
    return memory_view(await _visible(session, me, memory_id))


async def set_status(
    session: AsyncSession, me: Principal, memory_id: str, status: str
) -> AgentMemory:
    """Supersede, archive or restore (idempotent: setting the current status changes nothing)."""
    row = await _visible(session, me, memory_id)
    if row.status != status:
        row.status = status
        row.updated_at = utcnow()
        await session.flush()
    return memory_view(row)


async def delete_memory(session: AsyncSession, me: Principal, memory_id: str) -> AgentMemory:
    """Erase a memory for good (the owner person's right); returns what was erased."""
    row = await _visible(session, me, memory_id)
    view = memory_view(row)
    await session.execute(delete(Memory).where(Memory.id == row.id))
    return view
