"""A person's own profile."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import UserProfile, utcnow
from band_server.errors import ValidationFailed
from band_server.services.identity.accounts import get_user
from band_server.services.identity.principals import Principal
from band_server.services.views import from_row
from band_server.store.models import User


def profile_view(user: User) -> UserProfile:
    return from_row(UserProfile, user, role="admin" if user.role == "admin" else "user")


async def get_profile(session: AsyncSession, me: Principal) -> UserProfile:
    return profile_view(await get_user(session, me.id))


def _clean(value: str | None) -> str | None:
    return None if value is None else value.strip() or None


async def update_profile(
    session: AsyncSession,
    me: Principal,
    *,
    name: str | None = None,
    first_name: str | None = None,
    last_name: str | None = None,
) -> UserProfile:
    """Change the display name and/or the first and last names.

    Giving first or last name without a display name makes the display name "first last", so
    what others see in rooms follows the person's names. The handle is permanent: mentions and
    contacts rely on it.
    """
    user = await get_user(session, me.id)
    if name is not None and not name.strip():
        raise ValidationFailed("name can't be blank", {"/user/name": ["can't be blank"]})
    changed = False
    if first_name is not None or last_name is not None:
        if first_name is not None:
            user.first_name = _clean(first_name)
        if last_name is not None:
            user.last_name = _clean(last_name)
        full = " ".join(p for p in (user.first_name, user.last_name) if p)
        if name is None and full:
            user.name = full[:80]
        changed = True
    if name is not None:
        user.name = name.strip()
        changed = True
    if changed:
        user.updated_at = utcnow()
        await session.flush()
    return profile_view(user)
