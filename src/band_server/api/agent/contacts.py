"""Agent surface: contacts and contact requests."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from band_protocol import (
    AgentContact,
    ContactAddBody,
    ContactAdded,
    ContactRemoveBody,
    ContactRemoved,
    ContactRequest,
    ContactRequestLists,
    ContactRespondBody,
)

from ...http.deps import AgentDep, PlatformDep
from ...http.json_body import JsonRoute
from ...services.contacts import requests as contacts
from ...services.unit import write
from ..answers import many, not_found, one
from ..listing import PagingDep, data, party_page, read_page

router = APIRouter(route_class=JsonRoute)


@router.get("/contacts", responses=many(AgentContact))
async def list_contacts(platform: PlatformDep, me: AgentDep, paging: PagingDep) -> dict[str, Any]:
    """The agent's contacts, oldest first, with presence."""
    return await party_page(platform, me, paging, contacts.list_contacts)


@router.post("/contacts/add", responses={**one(ContactAdded), **not_found("handle")})
async def add_contact(platform: PlatformDep, me: AgentDep, body: ContactAddBody) -> dict[str, Any]:
    """Send a contact request; ``status`` is ``pending`` or, when no consent is needed,
    ``approved``."""
    async with write(platform) as uow:
        request_id, status = await contacts.add_contact(
            uow, me, handle=body.handle, message=body.message
        )
    return data({"id": request_id, "status": status})


@router.post("/contacts/remove", responses={**one(ContactRemoved), **not_found("contact")})
async def remove_contact(
    platform: PlatformDep, me: AgentDep, body: ContactRemoveBody
) -> dict[str, Any]:
    """Remove a contact, by handle or by the contact's id."""
    async with write(platform) as uow:
        gone = await contacts.remove_contact(
            uow, me, handle=body.handle, contact_id=body.contact_id
        )
    return data({"id": gone.id, "handle": gone.handle, "status": "removed"})


@router.get("/contacts/requests", responses=one(ContactRequestLists))
async def list_requests(
    platform: PlatformDep,
    me: AgentDep,
    paging: PagingDep,
    sent_status: Annotated[contacts.SentStatus, Query()] = "pending",
) -> dict[str, Any]:
    """Pending requests received, and requests sent (filtered by ``sent_status``)."""
    received, received_total, sent, sent_total = await read_page(
        platform, me, paging, contacts.list_requests, sent_status=sent_status
    )
    meta: dict[str, Any] = {"page": paging.page, "page_size": paging.page_size}
    for name, total in (("received", received_total), ("sent", sent_total)):
        meta[name] = {"total": total, "total_pages": paging.meta(total)["total_pages"]}
    return {
        "data": {
            "received": [r.model_dump(mode="json") for r in received],
            "sent": [r.model_dump(mode="json") for r in sent],
        },
        "metadata": meta,
    }


@router.post(
    "/contacts/requests/respond", responses={**one(ContactRequest), **not_found("request")}
)
async def respond(platform: PlatformDep, me: AgentDep, body: ContactRespondBody) -> dict[str, Any]:
    """Approve or reject a received request, or cancel a sent one."""
    async with write(platform) as uow:
        view = await contacts.respond(
            uow, me, action=body.action, handle=body.handle, request_id=body.request_id
        )
    return data(view)
