"""Browser sessions for the web app: a random cookie token, stored only as its SHA-256.

The session's CSRF token is an HMAC-SHA256 of a fixed label keyed by the cookie token: a page
of the session can carry it, a site without the (HttpOnly) cookie can't compute it, and
neither it nor the cookie token is stored anywhere in the clear.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow
from band_server.services.identity.accounts import is_disabled, user_principal
from band_server.services.identity.keys import hash_key
from band_server.services.identity.principals import Principal
from band_server.services.identity.roles import is_admin
from band_server.store.models import User, WebSession

COOKIE_NAME = "band_session"
LIFETIME = timedelta(days=14)
_CSRF_LABEL = b"band web session csrf v1"


@dataclass(frozen=True)
class SignedIn:
    """The person behind a session cookie, and the session's CSRF token."""

    person: Principal
    csrf_token: str
    is_admin: bool = False
    may_invite: bool = False  # an admin's grant; admins invite anyway


def csrf_of(token: str) -> str:
    """The CSRF token of the session whose cookie token is ``token``."""
    digest = hmac.new(token.encode("utf-8"), _CSRF_LABEL, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def start_session(session: AsyncSession, person: Principal) -> tuple[str, str]:
    """Create a session for a person; return (cookie token, CSRF token)."""
    token = secrets.token_urlsafe(32)
    session.add(
        WebSession(token_hash=hash_key(token), user_id=person.id, expires_at=utcnow() + LIFETIME)
    )
    await session.flush()
    return token, csrf_of(token)


def _aware(moment: datetime) -> datetime:
    # SQLite hands timestamps back without their zone; they were written in UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


async def signed_in(session: AsyncSession, token: str | None) -> SignedIn | None:
    """The live session for a cookie token, or None (missing, unknown, expired)."""
    if not token:
        return None
    row = await session.get(WebSession, hash_key(token))
    if row is None or _aware(row.expires_at) <= utcnow():
        return None
    user = await session.get(User, row.user_id)
    if user is None or is_disabled(user):
        return None
    admin = await is_admin(session, user.id)
    return SignedIn(user_principal(user), csrf_of(token), admin, admin or bool(user.may_invite))


async def end_session(session: AsyncSession, token: str | None) -> None:
    """Forget a session (signing out); unknown tokens are ignored."""
    if token:
        await session.execute(delete(WebSession).where(WebSession.token_hash == hash_key(token)))
