"""Admin: who may invite people by email, person by person (the People page's switch)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, StrictBool

from ...http.deps import PlatformDep
from ...http.json_body import JsonRoute
from ...services.identity import people
from ...services.unit import write
from ..answers import not_found, one
from .access import AdminDep

router = APIRouter(route_class=JsonRoute)


class InvitePermission(BaseModel):
    """Whether a person may invite people by email (admins always may)."""

    model_config = ConfigDict(extra="forbid")
    may_invite: StrictBool  # true or false, never 0 or "yes"


class InvitePermissionView(BaseModel):
    id: str
    may_invite: bool


@router.put(
    "/people/{person_id}/may-invite",
    responses={**one(InvitePermissionView), **not_found("person")},
)
async def set_may_invite(
    platform: PlatformDep, admin: AdminDep, person_id: str, body: InvitePermission
) -> dict[str, Any]:
    """Allow a person to invite people by email, or withdraw it. Without the grant (and
    without ``BAND_MEMBERS_MAY_INVITE``) a person's invitation is refused with 403
    ``invite_not_allowed``."""
    async with write(platform) as uow:
        row = await people.set_may_invite(uow.session, admin, person_id, body.may_invite)
    return {"data": {"id": row.id, "may_invite": row.may_invite}}
