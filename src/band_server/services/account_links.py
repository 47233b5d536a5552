"""Invitations and password resets: single-use, expiring links whose token is stored only as
its SHA-256. An invitation lets someone join with an email (the invitee picks a name, handle
and password); a reset lets a person set a new password. Using a link ends it; a reset also
ends the person's other sessions (services.session_devices)."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow

from ..errors import Conflict, Forbidden, NotFound
from ..store.models import AccountLink, User
from .identity.accounts import create_user, get_user, normalise_email
from .identity.keys import hash_key
from .identity.principals import Principal
from .identity.roles import is_admin
from .passwords import check_policy, set_password

Kind = Literal["invite", "reset"]
LIFETIMES: dict[str, timedelta] = {"invite": timedelta(days=7), "reset": timedelta(hours=1)}
GONE = "This link has expired or was already used. Ask for a new one."


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def _issue(
    session: AsyncSession, kind: Kind, email: str, *, user_id: str | None, by: str | None
) -> str:
    token = secrets.token_urlsafe(32)
    session.add(
        AccountLink(
            token_hash=hash_key(token),
            kind=kind,
            email=email,
            user_id=user_id,
            created_by=by,
            expires_at=utcnow() + LIFETIMES[kind],
        )
    )
    await session.flush()
    return token


async def may_invite(session: AsyncSession, actor: Principal, members_may_invite: bool) -> bool:
    """Admins may invite; so may a person an admin allowed (``users.may_invite``), and
    everyone when ``BAND_MEMBERS_MAY_INVITE`` is on. Agents never."""
    if actor.is_agent:
        return False
    if members_may_invite or await is_admin(session, actor.id):
        return True
    return bool(await session.scalar(select(User.may_invite).where(User.id == actor.id)))


NOT_ALLOWED = "You may not invite people here. Ask an admin to allow you to invite."


async def invite(
    session: AsyncSession, actor: Principal, email: str, *, members_may_invite: bool
) -> tuple[str, str]:
    """An invitation for ``email`` (not yet a person's): (token, normalised address)."""
    if not await may_invite(session, actor, members_may_invite):
        raise Forbidden(NOT_ALLOWED, code="invite_not_allowed")
    address = await _free(session, email)
    return await _issue(session, "invite", address, user_id=None, by=actor.id), address


async def _free(session: AsyncSession, email: str) -> str:
    """The normalised address, or 409 when a person already has it."""
    address = normalise_email(email)
    if await session.scalar(select(User.id).where(User.email == address)):
        raise Conflict(f"{address} already has an account", code="email_taken")
    return address


async def invite_by_operator(session: AsyncSession, email: str) -> str:
    """An invitation from the command line (whoever runs it runs the platform)."""
    return await _issue(session, "invite", await _free(session, email), user_id=None, by=None)


async def reset_for(session: AsyncSession, user: User, by: Principal | None) -> str:
    """A password-reset link for a person (an admin's, or asked for by mail)."""
    return await _issue(session, "reset", user.email, user_id=user.id, by=by.id if by else None)


async def reset_by_admin(session: AsyncSession, actor: Principal, person_id: str) -> str:
    if not await is_admin(session, actor.id):
        raise Forbidden("Only an admin can issue a reset link")
    return await reset_for(session, await get_user(session, person_id), actor)


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    address = email.strip().lower()
    return await session.scalar(select(User).where(User.email == address)) if address else None


async def open_link(session: AsyncSession, kind: Kind, token: str) -> AccountLink:
    """The live link of this kind for ``token``, or 404 in words that reveal nothing."""
    row = await session.get(AccountLink, hash_key(token)) if token else None
    if row is None or row.kind != kind or row.used_at is not None:
        raise NotFound(GONE)
    if _aware(row.expires_at) <= utcnow():
        raise NotFound(GONE)
    return row


async def _use(session: AsyncSession, row: AccountLink) -> None:
    """Mark the link used; a second use racing this one finds it used (0 rows updated)."""
    done = await session.execute(
        update(AccountLink)
        .where(AccountLink.token_hash == row.token_hash, AccountLink.used_at.is_(None))
        .values(used_at=utcnow())
    )
    if getattr(done, "rowcount", 1) != 1:
        raise NotFound(GONE)


async def accept_invite(
    session: AsyncSession, token: str, *, name: str, handle: str, password: str
) -> User:
    """Join through an invitation: a new person with the invited email and this password."""
    row = await open_link(session, "invite", token)
    check_policy(password)
    user, _ = await create_user(session, name=name, handle=handle, email=row.email)
    await set_password(session, user, password)
    row.user_id = user.id
    await _use(session, row)
    return user


async def complete_reset(session: AsyncSession, token: str, password: str) -> User:
    """Set a new password through a reset link."""
    row = await open_link(session, "reset", token)
    user = await session.get(User, row.user_id) if row.user_id else None
    if user is None:
        raise NotFound(GONE)
    await set_password(session, user, password)
    await _use(session, row)
    return user
