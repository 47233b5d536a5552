"""People (admins only): create a person (their key shown once), list, disable, enable, and
allow or withdraw inviting people by email."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..services.identity import people
from ..services.identity.web_sessions import SignedIn
from ..services.unit import write
from .render import page
from .respond import Form, action, done, field, platform_of, view

router = APIRouter()


@router.get("/people")
async def people_page(request: Request) -> Response:
    """Everyone on the platform, for an admin (403 for anyone else)."""

    async def run(me: SignedIn) -> Response:
        async with platform_of(request).db.read() as session:
            rows = await people.list_people(session, me.person)
        return page("people.html", me, section="people", people=rows)

    return await view(request, run)


@router.post("/people")
async def create_person(request: Request) -> Response:
    """Add person: the answer carries their API key, this once."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            row, key = await people.create_person(
                uow.session,
                me.person,
                name=field(form, "name"),
                handle=field(form, "handle"),
                email=field(form, "email") or None,
            )
        shown = {"title": "Person Added", "name": row.name, "handle": row.handle, "api_key": key}
        return done(request, "/people", shown, 201)

    return await action(request, run)


async def _set_disabled(request: Request, person_id: str, disabled: bool) -> Response:
    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            row = await people.set_disabled(uow, me.person, person_id, disabled)
        return done(request, "/people", {"id": row.id, "disabled": row.disabled})

    return await action(request, run)


@router.post("/people/{person_id}/disable")
async def disable(request: Request, person_id: str) -> Response:
    """Disable a person: their keys and web sessions stop working at once."""
    return await _set_disabled(request, person_id, True)


@router.post("/people/{person_id}/enable")
async def enable(request: Request, person_id: str) -> Response:
    """Let a disabled person sign in again with their keys."""
    return await _set_disabled(request, person_id, False)


@router.post("/people/{person_id}/may-invite")
async def may_invite(request: Request, person_id: str) -> Response:
    """Allow a person to invite people by email (``allowed=1``) or withdraw it (``0``)."""

    async def run(me: SignedIn, form: Form) -> Response:
        allowed = field(form, "allowed") == "1"
        async with write(platform_of(request)) as uow:
            row = await people.set_may_invite(uow.session, me.person, person_id, allowed)
        return done(request, "/people", {"id": row.id, "may_invite": row.may_invite})

    return await action(request, run)
