"""A person's contacts as the human surface shows them: the contact record and whom it names.

The agent surface lists the party itself (``AgentContact``); people get the record (``id``),
``contact_id`` / ``contact_type`` and, for people, a ``user`` block with their email.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import ContactRequest as ContactRequestView
from band_protocol import ContactUser, PersonContact, iso
from band_server.errors import NotFound
from band_server.services.contacts.requests import (
    add_contact,
    contact_page,
    remove_contact,
    request_view,
)
from band_server.services.identity.parties import parties_by_ids
from band_server.services.identity.principals import Principal
from band_server.services.unit import UnitOfWork
from band_server.services.views import from_row
from band_server.store.models import Contact, ContactRequest, User

Online = Callable[[str], bool]


async def list_contacts(
    session: AsyncSession, me: Principal, *, page: int, page_size: int, online: Online
) -> tuple[list[PersonContact], int]:
    """One page of the person's contacts, oldest first, and the total count."""
    edges, parties, total = await contact_page(session, me, page=page, page_size=page_size)
    people = {e.contact_id for e in edges if e.contact_type == "User"}
    rows = await session.execute(select(User.id, User.email).where(User.id.in_(people)))
    emails = {user_id: email for user_id, email in rows}
    out: list[PersonContact] = []
    for edge in edges:
        party = parties.get(edge.contact_id)
        if party is None:
            continue
        user = None
        if party.type == "User":
            user = from_row(ContactUser, party, email=emails.get(party.id))
        out.append(
            from_row(
                PersonContact,
                party,
                id=edge.id,
                contact_id=party.id,
                contact_type=party.type,
                user=user,
                online=online(party.id),
                inserted_at=iso(edge.created_at),
            )
        )
    return out, total


async def remove(
    uow: UnitOfWork, me: Principal, *, handle: str | None, contact_id: str | None
) -> PersonContact:
    """Remove a contact named by handle, by its contact record id, or by the party's id."""
    if contact_id and not handle:
        edge = await uow.session.scalar(
            select(Contact).where(Contact.id == contact_id, Contact.owner_id == me.id)
        )
        if edge is not None:
            contact_id = edge.contact_id
    gone = await remove_contact(uow, me, handle=handle, contact_id=contact_id)
    return PersonContact(
        id=gone.id,
        contact_id=gone.id,
        contact_type=gone.type,
        handle=gone.handle,
        name=gone.name or gone.handle,
        online=False,
        inserted_at=gone.inserted_at,
    )


async def send_request(
    uow: UnitOfWork, me: Principal, *, handle: str, message: str | None
) -> ContactRequestView:
    """Ask someone to be a contact; the answer is the whole request as stored."""
    request_id, _ = await add_contact(uow, me, handle=handle, message=message)
    req = await uow.session.get(ContactRequest, request_id)
    if req is None:  # pragma: no cover - written in this transaction
        raise NotFound("Contact request not found")
    parties = await parties_by_ids(uow.session, (req.from_id, req.to_id))
    return request_view(req, parties)
