"""A person's own profile."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from band.protocol import UserProfile, iso, utcnow

from ..errors import ValidationFailed
from ..store.models import User
from .accounts import get_user
from .principals import Principal


def profile_view(user: User) -> UserProfile:
    return UserProfile(
        id=user.id,
        name=user.name,
        handle=user.handle,
        email=user.email,
        inserted_at=iso(user.created_at),
        updated_at=iso(user.updated_at),
    )


async def get_profile(session: AsyncSession, me: Principal) -> UserProfile:
    return profile_view(await get_user(session, me.id))


async def update_profile(session: AsyncSession, me: Principal, *, name: str | None) -> UserProfile:
    """Change the display name (the handle is permanent: mentions and contacts rely on it)."""
    user = await get_user(session, me.id)
    if name is not None:
        if not name.strip():
            raise ValidationFailed("name can't be blank", {"/user/name": ["can't be blank"]})
        user.name = name.strip()
        user.updated_at = utcnow()
        await session.flush()
    return profile_view(user)
