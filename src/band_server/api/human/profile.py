"""Human surface: the caller's profile."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import ProfileUpdateBody, UserProfile

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.identity import profile
from ...services.unit import write
from ..answers import not_found, one
from ..listing import data

router = APIRouter(route_class=JsonRoute)


@router.get("/profile", responses={**one(UserProfile), **not_found("person")})
async def get_profile(platform: PlatformDep, me: UserDep) -> dict[str, Any]:
    """The calling person's profile."""
    async with platform.db.read() as session:
        return data(await profile.get_profile(session, me))


@router.put("/profile", responses={**one(UserProfile), **not_found("person")})
async def put_profile(
    platform: PlatformDep, me: UserDep, body: ProfileUpdateBody
) -> dict[str, Any]:
    """Update the display name, or the first and last names."""
    async with write(platform) as uow:
        fields = body.user
        view = await profile.update_profile(
            uow.session,
            me,
            name=fields.name,
            first_name=fields.first_name,
            last_name=fields.last_name,
        )
    return data(view)
