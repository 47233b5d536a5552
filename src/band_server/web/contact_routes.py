"""Contacts: the person's contacts, requests received (approve, reject) and sent."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..services.contacts import requests as contacts
from ..services.identity.web_sessions import SignedIn
from ..services.unit import write
from .render import page
from .respond import Form, action, done, field, platform_of, view

router = APIRouter()

PAGE = 200


@router.get("/contacts")
async def contacts_page(request: Request) -> Response:
    """Contacts with presence, pending requests to answer, and requests awaiting an answer."""

    async def run(me: SignedIn) -> Response:
        platform = platform_of(request)
        async with platform.db.read() as session:
            found, _ = await contacts.list_contacts(
                session, me.person, page=1, page_size=PAGE, online=platform.presence.is_online
            )
            received, _, sent, _ = await contacts.list_requests(
                session, me.person, page=1, page_size=PAGE
            )
        notice = request.query_params.get("notice")
        return page(
            "contacts.html",
            me,
            section="contacts",
            contacts=found,
            received=received,
            sent=sent,
            notice=notice if notice in NOTICES else None,
            notices=NOTICES,
        )

    return await view(request, run)


NOTICES = {
    "pending": "Request sent. They appear here once they approve it.",
    "approved": "You are now contacts.",
    "rejected": "Request rejected.",
    "cancelled": "Request withdrawn.",
}


@router.post("/contacts/requests")
async def send_request(request: Request) -> Response:
    """Ask someone, by handle, to become a contact."""

    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            request_id, status = await contacts.add_contact(
                uow,
                me.person,
                handle=field(form, "handle"),
                message=field(form, "message").strip() or None,
            )
        return done(request, f"/contacts?notice={status}", {"id": request_id, "status": status})

    return await action(request, run)


async def _respond(request: Request, request_id: str, verb: contacts.Action) -> Response:
    async def run(me: SignedIn, form: Form) -> Response:
        async with write(platform_of(request)) as uow:
            answered = await contacts.respond(uow, me.person, action=verb, request_id=request_id)
        to = f"/contacts?notice={answered.status}"
        return done(request, to, {"id": answered.id, "status": answered.status})

    return await action(request, run)


@router.post("/contacts/requests/{request_id}/approve")
async def approve(request: Request, request_id: str) -> Response:
    return await _respond(request, request_id, "approve")


@router.post("/contacts/requests/{request_id}/reject")
async def reject(request: Request, request_id: str) -> Response:
    return await _respond(request, request_id, "reject")


@router.post("/contacts/requests/{request_id}/cancel")
async def cancel(request: Request, request_id: str) -> Response:
    return await _respond(request, request_id, "cancel")
