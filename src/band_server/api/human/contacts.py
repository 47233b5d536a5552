"""Human surface: a person's contacts and contact requests."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from band_protocol import (
    ContactRemoveBody,
    ContactRequest,
    ContactRequestBody,
    HandleResolved,
    PersonContact,
    RequestModel,
)

from ...errors import NotFound, ValidationFailed
from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.contacts import person_view as person_contacts
from ...services.contacts import requests as contacts
from ...services.identity import parties
from ...services.unit import write
from ..answers import many, not_found, one
from ..listing import PagingDep, data, listing, party_page, read_page

router = APIRouter(route_class=JsonRoute)


class ResolveBody(RequestModel):
    handle: str


@router.get("/contacts", responses=many(PersonContact))
async def list_contacts(platform: PlatformDep, me: UserDep, paging: PagingDep) -> dict[str, Any]:
    """The person's contacts (records naming a person or an agent), oldest first, with
    presence and, for people, their email."""
    return await party_page(platform, me, paging, person_contacts.list_contacts)


@router.post("/contacts/remove", responses={**one(PersonContact), **not_found("contact")})
async def remove_contact(
    platform: PlatformDep, me: UserDep, body: ContactRemoveBody
) -> dict[str, Any]:
    """Remove a contact (both directions), by handle or by the contact record's id."""
    async with write(platform) as uow:
        gone = await person_contacts.remove(uow, me, handle=body.handle, contact_id=body.contact_id)
    return data({**gone.model_dump(mode="json"), "status": "removed"})


@router.post("/contacts/resolve", responses={**one(HandleResolved), **not_found("handle")})
async def resolve(platform: PlatformDep, me: UserDep, body: ResolveBody) -> dict[str, Any]:
    """Who a handle names, and whether they are already a contact."""
    async with platform.db.read() as session:
        party = await parties.party_by_handle(session, body.handle)
        if party is None:
            raise NotFound(f"No one with handle '{body.handle}'")
        is_contact = party.id in await contacts.contact_ids(session, me.id)
    return data({**party.card(), "is_contact": is_contact})


@router.get("/contacts/requests", responses=many(ContactRequest))
async def received_requests(
    platform: PlatformDep, me: UserDep, paging: PagingDep
) -> dict[str, Any]:
    """Pending requests the person received, newest first."""
    received, total, _, _ = await read_page(platform, me, paging, contacts.list_requests)
    return listing(received, paging.meta(total))


@router.get("/contacts/requests/sent", responses=many(ContactRequest))
async def sent_requests(
    platform: PlatformDep,
    me: UserDep,
    paging: PagingDep,
    status: Annotated[contacts.SentStatus, Query()] = "all",
) -> dict[str, Any]:
    """Requests the person sent, every status unless ``status`` narrows it."""
    _, _, sent, total = await read_page(
        platform, me, paging, contacts.list_requests, sent_status=status
    )
    return listing(sent, paging.meta(total))


@router.post(
    "/contacts/requests",
    status_code=201,
    responses={**one(ContactRequest, 201), **not_found("handle")},
)
async def send_request(
    platform: PlatformDep, me: UserDep, body: ContactRequestBody
) -> dict[str, Any]:
    """Ask someone (by handle) to become a contact; the answer is the request."""
    fields = body.contact_request
    handle = fields.recipient_handle if fields else body.handle
    message = fields.message if fields else body.message
    if not handle:
        raise ValidationFailed(
            "contact_request.recipient_handle is required",
            {"/contact_request/recipient_handle": ["is required"]},
        )
    async with write(platform) as uow:
        view = await person_contacts.send_request(uow, me, handle=handle, message=message)
    return data(view)


async def _respond(
    platform: PlatformDep, me: UserDep, request_id: str, action: contacts.Action
) -> dict[str, Any]:
    async with write(platform) as uow:
        view = await contacts.respond(uow, me, action=action, request_id=request_id)
    return data(view)


@router.post("/contacts/requests/{request_id}/approve", responses=one(ContactRequest))
async def approve(platform: PlatformDep, me: UserDep, request_id: str) -> dict[str, Any]:
    """Approve a request the person received."""
    return await _respond(platform, me, request_id, "approve")


@router.post("/contacts/requests/{request_id}/reject", responses=one(ContactRequest))
async def reject(platform: PlatformDep, me: UserDep, request_id: str) -> dict[str, Any]:
    """Reject a request the person received."""
    return await _respond(platform, me, request_id, "reject")


@router.delete("/contacts/requests/{request_id}", responses=one(ContactRequest))
async def cancel(platform: PlatformDep, me: UserDep, request_id: str) -> dict[str, Any]:
    """Withdraw a request the person sent."""
    return await _respond(platform, me, request_id, "cancel")
