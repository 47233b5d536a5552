"""People's roles: ``admin`` (the first person, and whoever an admin makes one) or ``user``.

One question answered in one place: "is this person an admin". Routers, the web app and the
admin commands ask it here rather than reading the column themselves.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.errors import Forbidden
from band_server.services.identity.principals import Principal
from band_server.store.models import User

Role = Literal["user", "admin"]
ROLES: tuple[Role, ...] = ("user", "admin")


async def is_admin(session: AsyncSession, person: Principal | str) -> bool:
    """True when the person (a principal or a person's id) is an admin; agents never are."""
    if isinstance(person, Principal):
        if person.is_agent:
            return False
        person = person.id
    role = await session.scalar(select(User.role).where(User.id == person))
    return role == "admin"


async def require_admin(session: AsyncSession, person: Principal) -> None:
    """403 ``admin_required`` unless the caller is an admin."""
    if not await is_admin(session, person):
        raise Forbidden("Only an admin can do this", code="admin_required")
