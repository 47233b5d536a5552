"""Contacts and contact requests, for agents and people alike.

A request needs the other side to agree, except inside one account (a person and their agents,
or sibling agents), where it is approved at once. An approved request writes one contact edge
in each direction. Agents hear about changes on ``agent_contacts:<agent_id>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import AgentContact, PartyRef, iso, topic, utcnow
from band_protocol import ContactRequest as ContactRequestView
from band_server.errors import Conflict, NotFound, ValidationFailed
from band_server.fanout.bus import Broadcast
from band_server.services.identity.parties import Party, parties_by_ids, party_by_id, require_party
from band_server.services.identity.principals import Principal
from band_server.services.keyset import offset_page
from band_server.services.unit import UnitOfWork
from band_server.services.views import from_row
from band_server.store.models import Contact, ContactRequest

Online = Callable[[str], bool]
SentStatus = Literal["pending", "approved", "rejected", "cancelled", "all"]
Action = Literal["approve", "reject", "cancel"]


def _contacts_broadcast(party: Party, event: str, payload: dict[str, Any]) -> list[Broadcast]:
    """Only agents have a contacts topic; people see changes by listing."""
    if party.type != "Agent":
        return []
    return [
        Broadcast(
            topic=topic("agent_contacts", party.id),
            event=event,
            payload=payload,
            agents=frozenset({party.id}),
        )
    ]


def _added_payload(contact: Party, inserted_at: str) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "id": contact.id,
        "type": contact.type,
        "handle": contact.handle,
        "name": contact.name,
        "inserted_at": inserted_at,
        "is_external": False,
    }
    if contact.description is not None:  # the client rejects a null description
        payload["description"] = contact.description
    return payload


def contact_view(contact: Party, edge: Contact, online: bool) -> AgentContact:
    return from_row(AgentContact, contact, online=online, inserted_at=iso(edge.created_at))


def _ref(party_id: str, party: Party | None) -> PartyRef:
    if party is None:
        return PartyRef(id=party_id)
    return PartyRef(id=party.id, handle=party.handle, name=party.name)


def request_view(req: ContactRequest, parties: dict[str, Party]) -> ContactRequestView:
    sender, receiver = parties.get(req.from_id), parties.get(req.to_id)
    return ContactRequestView(
        id=req.id,
        status=req.status,
        requester_id=req.from_id,
        requester_type="Agent" if req.from_type == "Agent" else "User",
        requester=_ref(req.from_id, sender),
        recipient_id=req.to_id,
        recipient_type="Agent" if req.to_type == "Agent" else "User",
        recipient=_ref(req.to_id, receiver),
        responded_at=iso(req.updated_at) if req.status != "pending" else None,
        from_id=req.from_id,
        from_handle=sender.handle if sender else None,
        from_name=sender.name if sender else None,
        to_id=req.to_id,
        to_handle=receiver.handle if receiver else None,
        to_name=receiver.name if receiver else None,
        message=req.message,
        inserted_at=iso(req.created_at),
        updated_at=iso(req.updated_at),
    )


async def _edge(session: AsyncSession, owner_id: str, contact_id: str) -> Contact | None:
    row: Contact | None = await session.scalar(
        select(Contact).filter_by(owner_id=owner_id, contact_id=contact_id)
    )
    return row


async def _pending(session: AsyncSession, from_id: str, to_id: str) -> ContactRequest | None:
    row: ContactRequest | None = await session.scalar(
        select(ContactRequest).filter_by(from_id=from_id, to_id=to_id, status="pending")
    )
    return row


async def contact_page(
    session: AsyncSession, me: Principal, *, page: int, page_size: int
) -> tuple[list[Contact], dict[str, Party], int]:
    """One page of the caller's contact records, oldest first, the parties they name (a
    deleted agent's record has none), and the total count: both surfaces' lists read this."""
    mine = select(Contact).where(Contact.owner_id == me.id)
    order = (Contact.created_at, Contact.id)
    edges, total = await offset_page(session, mine, *order, page=page, page_size=page_size)
    parties = await parties_by_ids(session, (e.contact_id for e in edges))
    return edges, parties, total


async def list_contacts(
    session: AsyncSession, me: Principal, *, page: int, page_size: int, online: Online
) -> tuple[list[AgentContact], int]:
    """One page of the caller's contacts, oldest first, and the total count."""
    edges, parties, total = await contact_page(session, me, page=page, page_size=page_size)
    views = [
        contact_view(parties[e.contact_id], e, online(e.contact_id))
        for e in edges
        if e.contact_id in parties
    ]
    return views, total


async def contact_ids(session: AsyncSession, owner_id: str) -> list[str]:
    """Ids of everyone the owner has as a contact."""
    return list(
        await session.scalars(select(Contact.contact_id).where(Contact.owner_id == owner_id))
    )


async def _connect(uow: UnitOfWork, a: Party, b: Party) -> None:
    """Write both edges (if missing) and tell each agent side about the other."""
    now = utcnow()
    for owner, other in ((a, b), (b, a)):
        if await _edge(uow.session, owner.id, other.id) is None:
            uow.session.add(
                Contact(
                    owner_id=owner.id,
                    owner_type=owner.type,
                    contact_id=other.id,
                    contact_type=other.type,
                    created_at=now,
                )
            )
            uow.emit(*_contacts_broadcast(owner, "contact_added", _added_payload(other, iso(now))))
    await uow.session.flush()


def _updated(req: ContactRequest, *parties: Party) -> list[Broadcast]:
    payload = {"id": req.id, "status": req.status}
    return [b for p in parties for b in _contacts_broadcast(p, "contact_request_updated", payload)]


async def add_contact(
    uow: UnitOfWork, me: Principal, *, handle: str, message: str | None
) -> tuple[str, str]:
    """Ask someone to be a contact. Returns ``(request_id, status)``.

    A pending request from them to me is approved instead; within one account the request is
    approved at once; asking again while a request is pending returns that request.
    """
    session = uow.session
    target = await require_party(session, handle=handle, party_id=None)
    caller = await party_by_id(session, me.id)
    if caller is None:
        raise NotFound("Caller not found")
    if target.id == caller.id:
        raise ValidationFailed("You can't add yourself as a contact", {"/handle": ["is yourself"]})
    if await _edge(session, caller.id, target.id) is not None:
        raise Conflict(f"'{target.handle}' is already a contact", code="already_contact")
    mine = await _pending(session, caller.id, target.id)
    if mine is not None:
        return mine.id, mine.status
    reverse = await _pending(session, target.id, caller.id)
    if reverse is not None:
        reverse.status = "approved"
        reverse.updated_at = utcnow()
        await _connect(uow, caller, target)
        uow.emit(*_updated(reverse, target, caller))
        return reverse.id, reverse.status
    req = ContactRequest(
        from_id=caller.id,
        from_type=caller.type,
        to_id=target.id,
        to_type=target.type,
        message=message,
        status="approved" if caller.same_account(target) else "pending",
    )
    session.add(req)
    await session.flush()
    if req.status == "approved":
        await _connect(uow, caller, target)
        return req.id, req.status
    uow.emit(
        *_contacts_broadcast(
            target,
            "contact_request_received",
            {
                "id": req.id,
                "status": req.status,
                "inserted_at": iso(req.created_at),
                "from_handle": caller.handle,
                "from_name": caller.name,
                "message": message,
            },
        )
    )
    return req.id, req.status


async def _disconnect(uow: UnitOfWork, a: Party, b: Party) -> None:
    await uow.session.execute(
        delete(Contact).where(
            or_(
                (Contact.owner_id == a.id) & (Contact.contact_id == b.id),
                (Contact.owner_id == b.id) & (Contact.contact_id == a.id),
            )
        )
    )
    uow.emit(*_contacts_broadcast(a, "contact_removed", {"id": b.id}))
    uow.emit(*_contacts_broadcast(b, "contact_removed", {"id": a.id}))


async def remove_contact(
    uow: UnitOfWork, me: Principal, *, handle: str | None, contact_id: str | None
) -> AgentContact:
    """Remove a contact (both directions). ``contact_id`` is the contact's own id."""
    if not handle and not contact_id:
        raise ValidationFailed("Give a handle or a contact_id", {"/handle": ["is required"]})
    session = uow.session
    other = await require_party(session, handle=handle, party_id=contact_id)
    edge = await _edge(session, me.id, other.id)
    caller = await party_by_id(session, me.id)
    if edge is None or caller is None:
        raise NotFound("Contact not found")
    view = contact_view(other, edge, False)
    await _disconnect(uow, caller, other)
    return view


async def list_requests(
    session: AsyncSession,
    me: Principal,
    *,
    page: int,
    page_size: int,
    sent_status: SentStatus = "pending",
) -> tuple[list[ContactRequestView], int, list[ContactRequestView], int]:
    """``(received, received_total, sent, sent_total)``: pending received, and sent by status."""
    received_q = select(ContactRequest).where(
        ContactRequest.to_id == me.id, ContactRequest.status == "pending"
    )
    sent_q = select(ContactRequest).where(ContactRequest.from_id == me.id)
    if sent_status != "all":
        sent_q = sent_q.where(ContactRequest.status == sent_status)
    order = (ContactRequest.created_at.desc(), ContactRequest.id)
    out = [
        await offset_page(session, q, *order, page=page, page_size=page_size)
        for q in (received_q, sent_q)
    ]
    ids = {i for rows, _ in out for r in rows for i in (r.from_id, r.to_id)}
    parties = await parties_by_ids(session, ids)
    (recv, recv_total), (sent, sent_total) = out
    return (
        [request_view(r, parties) for r in recv],
        recv_total,
        [request_view(r, parties) for r in sent],
        sent_total,
    )


async def _find_request(
    session: AsyncSession, me: Principal, action: Action, handle: str | None, request_id: str | None
) -> ContactRequest:
    received = action != "cancel"  # approve/reject answer a request to me; cancel withdraws mine
    if request_id:
        req = await session.get(ContactRequest, request_id)
        mine = req is not None and (req.to_id if received else req.from_id) == me.id
        if req is None or not mine:
            raise NotFound("Contact request not found")
        return req
    if not handle:
        raise ValidationFailed("Give a handle or a request_id", {"/handle": ["is required"]})
    other = await require_party(session, handle=handle, party_id=None)
    found = (
        await _pending(session, other.id, me.id)
        if received
        else await _pending(session, me.id, other.id)
    )
    if found is None:
        raise NotFound(f"No pending contact request with '{other.handle}'")
    return found


async def respond(
    uow: UnitOfWork,
    me: Principal,
    *,
    action: Action,
    handle: str | None = None,
    request_id: str | None = None,
) -> ContactRequestView:
    """Approve or reject a request I received, or cancel one I sent."""
    session = uow.session
    req = await _find_request(session, me, action, handle, request_id)
    if req.status != "pending":
        raise Conflict(f"The request is already {req.status}", code="request_not_pending")
    parties = await parties_by_ids(session, (req.from_id, req.to_id))
    sender, receiver = parties.get(req.from_id), parties.get(req.to_id)
    if sender is None or receiver is None:
        raise NotFound("Contact request not found")
    req.status = {"approve": "approved", "reject": "rejected", "cancel": "cancelled"}[action]
    req.updated_at = utcnow()
    await session.flush()
    if req.status == "approved":
        await _connect(uow, sender, receiver)
    uow.emit(*_updated(req, sender, receiver))
    return request_view(req, parties)


async def forget_party(uow: UnitOfWork, party: Party) -> None:
    """A party is going away: drop its contacts and cancel its pending requests."""
    session = uow.session
    others = set(
        await session.scalars(select(Contact.contact_id).where(Contact.owner_id == party.id))
    )
    others |= set(
        await session.scalars(select(Contact.owner_id).where(Contact.contact_id == party.id))
    )
    for other in (await parties_by_ids(session, others)).values():
        await _disconnect(uow, party, other)
    pending = await session.scalars(
        select(ContactRequest).where(
            or_(ContactRequest.from_id == party.id, ContactRequest.to_id == party.id),
            ContactRequest.status == "pending",
        )
    )
    for req in list(pending):
        req.status = "cancelled"
        req.updated_at = utcnow()
        other_id = req.to_id if req.from_id == party.id else req.from_id
        other_party = await party_by_id(session, other_id)
        if other_party is not None:
            uow.emit(*_updated(req, other_party))
    await session.flush()
