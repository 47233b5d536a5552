"""People on the platform, as an admin manages them: create (key shown once), list, disable.

A disabled person's keys and web sessions stop working at once: sign-in and key checks refuse
them, their sessions are deleted, and a broadcast drops them from every node's key cache and
closes their live sockets.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import topic, utcnow
from band_server.errors import NotFound, ValidationFailed
from band_server.fanout.bus import Broadcast
from band_server.services.identity import accounts
from band_server.services.identity.accounts import is_disabled
from band_server.services.identity.principals import Principal
from band_server.services.identity.roles import is_admin, require_admin
from band_server.services.unit import UnitOfWork
from band_server.store.models import User, WebSession


@dataclass(frozen=True)
class PersonRow:
    """A person as the People page lists them."""

    id: str
    name: str
    handle: str
    email: str
    admin: bool
    disabled: bool
    created_at: datetime
    may_invite: bool = False  # an admin's grant (admins invite anyway)


async def _row(session: AsyncSession, user: User) -> PersonRow:
    admin = await is_admin(session, user.id)
    return PersonRow(
        user.id,
        user.name,
        user.handle,
        user.email,
        admin,
        is_disabled(user),
        user.created_at,
        bool(user.may_invite),
    )


async def list_people(session: AsyncSession, actor: Principal) -> list[PersonRow]:
    """Everyone, oldest first (admins only)."""
    await require_admin(session, actor)
    rows = list(await session.scalars(select(User).order_by(User.created_at, User.id)))
    return [await _row(session, u) for u in rows]


async def create_person(
    session: AsyncSession, actor: Principal, *, name: str, handle: str, email: str | None
) -> tuple[PersonRow, str]:
    """A new person and their first API key (returned in plain this once)."""
    await require_admin(session, actor)
    email = (email or "").strip() or None
    user, key = await accounts.create_user(session, name=name, handle=handle, email=email)
    return await _row(session, user), key


def _end_sessions(user_id: str) -> Broadcast:
    """Drop the person from every node's key cache and close their live sockets."""
    return Broadcast(
        topic=topic("user_rooms", user_id),
        event="session_ended",
        payload={"reason": "disabled"},
        agents=frozenset(),
        users=False,
        meta={"close_principal": user_id, "close_code": 1008},
    )


async def set_disabled(
    uow: UnitOfWork, actor: Principal, person_id: str, disabled: bool
) -> PersonRow:
    """Disable (or enable again) a person; an admin can't disable themself."""
    await require_admin(uow.session, actor)
    user = await uow.session.get(User, person_id)
    if user is None:
        raise NotFound("Person not found")
    if disabled and user.id == actor.id:
        raise ValidationFailed(
            "You can't disable yourself", {"/user/id": ["is the signed-in admin"]}
        )
    if disabled and not is_disabled(user):
        user.disabled_at = utcnow()
        await uow.session.execute(delete(WebSession).where(WebSession.user_id == user.id))
        uow.emit(_end_sessions(user.id))
    elif not disabled:
        user.disabled_at = None
    await uow.session.flush()
    return await _row(uow.session, user)


async def set_may_invite(
    session: AsyncSession, actor: Principal, person_id: str, allowed: bool
) -> PersonRow:
    """Allow a person to invite people by email, or withdraw it (admins only)."""
    await require_admin(session, actor)
    user = await session.get(User, person_id)
    if user is None:
        raise NotFound("Person not found")
    user.may_invite = allowed
    await session.flush()
    return await _row(session, user)
