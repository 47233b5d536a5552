"""The admin surface's caller: a person's key, of a person whose role is ``admin``."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends

from ...http.deps import PlatformDep, UserDep
from ...services.identity.principals import Principal
from ...services.identity.roles import require_admin


async def current_admin(platform: PlatformDep, me: UserDep) -> Principal:
    """403 ``admin_required`` for anyone but an admin."""
    async with platform.db.read() as session:
        await require_admin(session, me)
    return me


AdminDep = Annotated[Principal, Depends(current_admin)]
