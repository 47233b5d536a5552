"""A person's web sessions as they see them: the browser that signed in, when, when last
used; each can be ended, or all at once ("sign out everywhere"). Sessions are named to their
owner by the SHA-256 of their token (the row's key), never by the token."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow
from band_server.errors import NotFound
from band_server.services.identity.keys import hash_key
from band_server.services.identity.principals import Principal
from band_server.store.models import WebSession

TOUCH_EVERY = 300.0
"""Seconds between two writes of a session's last use (per node)."""
_touched: dict[str, float] = {}


@dataclass(frozen=True)
class Device:
    id: str
    browser: str
    created_at: datetime
    last_used_at: datetime | None
    current: bool


def browser_of(user_agent: str) -> str:
    """A short name for a User-Agent header: "Chrome on Linux", or the first 60 characters."""
    ua = user_agent or ""
    names = (
        ("Edg/", "Edge"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    )
    name = next((label for mark, label in names if mark in ua), "")
    systems = (
        ("Android", "Android"),
        ("iPhone", "iPhone"),
        ("iPad", "iPad"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    )
    system = next((label for mark, label in systems if mark in ua), "")
    if name and system:
        return f"{name} on {system}"
    return name or system or (ua[:60] if ua else "Unknown browser")


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def record(session: AsyncSession, token: str, user_agent: str | None) -> None:
    """Note the browser of a session that just started."""
    await session.execute(
        update(WebSession)
        .where(WebSession.token_hash == hash_key(token))
        .values(user_agent=(user_agent or "")[:300] or None, last_used_at=utcnow())
    )


def due(token: str) -> bool:
    """Whether this node should write the session's last use now (at most every 5 min)."""
    key = hash_key(token)
    now = time.monotonic()
    if now - _touched.get(key, -TOUCH_EVERY) < TOUCH_EVERY:
        return False
    if len(_touched) > 10_000:
        _touched.clear()
    _touched[key] = now
    return True


async def touch(session: AsyncSession, token: str) -> None:
    await session.execute(
        update(WebSession)
        .where(WebSession.token_hash == hash_key(token))
        .values(last_used_at=utcnow())
    )


async def list_devices(session: AsyncSession, person: Principal, token: str | None) -> list[Device]:
    """The person's live sessions, the most recently used first."""
    current = hash_key(token) if token else ""
    rows = await session.scalars(select(WebSession).where(WebSession.user_id == person.id))
    now = utcnow()
    devices = [
        Device(
            r.token_hash,
            browser_of(r.user_agent or ""),
            r.created_at,
            r.last_used_at,
            r.token_hash == current,
        )
        for r in rows
        if _aware(r.expires_at) > now
    ]
    return sorted(devices, key=lambda d: d.last_used_at or d.created_at, reverse=True)


async def end_device(session: AsyncSession, person: Principal, device_id: str) -> None:
    """End one of the person's sessions (404 for anyone else's)."""
    done = await session.execute(
        delete(WebSession).where(
            WebSession.token_hash == device_id, WebSession.user_id == person.id
        )
    )
    if getattr(done, "rowcount", 0) != 1:
        raise NotFound("No such session")


async def end_all(session: AsyncSession, user_id: str, keep: str | None = None) -> None:
    """End every session of a person, except the one of token ``keep``."""
    where = [WebSession.user_id == user_id]
    if keep:
        where.append(WebSession.token_hash != hash_key(keep))
    await session.execute(delete(WebSession).where(*where))
