"""Peers: everyone a caller can bring into a room.

For an agent: its owner and the owner's other agents (source ``registry``), then its contacts
(source ``contact``). For a person: their own agents, then their contacts. Never the caller.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import Peer
from band_server.services.contacts.requests import contact_ids
from band_server.services.identity.parties import Party, agents_of, parties_by_ids, party_by_id
from band_server.services.identity.principals import Principal
from band_server.services.rooms.membership import room_for
from band_server.store.models import Participant

Online = Callable[[str], bool]


def _peer(party: Party, *, source: str, is_contact: bool, online: bool) -> Peer:
    return Peer(
        **party.card(),
        is_contact=is_contact,
        online=online,
        source="registry" if source == "registry" else "contact",
        is_external=False,
    )


async def _registry(session: AsyncSession, me: Principal) -> list[Party]:
    """The caller's own account: the owner person first, then their agents by name."""
    owner_id = me.owner_id or me.id
    out: list[Party] = []
    if me.is_agent:
        owner = await party_by_id(session, owner_id)
        if owner is not None:
            out.append(owner)
    out.extend(await agents_of(session, owner_id))
    return out


async def all_peers(session: AsyncSession, me: Principal, online: Online) -> list[Peer]:
    """Every peer of the caller, registry first, each listed once."""
    contacts = await contact_ids(session, me.id)
    contact_set = set(contacts)
    seen: set[str] = {me.id}
    peers: list[Peer] = []
    for party in await _registry(session, me):
        if party.id not in seen:
            seen.add(party.id)
            peers.append(
                _peer(
                    party,
                    source="registry",
                    is_contact=party.id in contact_set,
                    online=online(party.id),
                )
            )
    by_id = await parties_by_ids(session, (c for c in contacts if c not in seen))
    for party in sorted(by_id.values(), key=lambda p: (p.name.lower(), p.id)):
        peers.append(_peer(party, source="contact", is_contact=True, online=online(party.id)))
    return peers


async def list_peers(
    session: AsyncSession,
    me: Principal,
    *,
    page: int,
    page_size: int,
    online: Online,
    not_in_chat: str | None = None,
    party_type: str | None = None,
) -> tuple[list[Peer], int]:
    """One page of peers and the total. ``not_in_chat`` (a room the caller is in, else 404)
    leaves out that room's current participants; ``party_type`` keeps people or agents."""
    peers = await all_peers(session, me, online)
    if party_type is not None:
        peers = [p for p in peers if p.type == party_type]
    if not_in_chat:
        await room_for(session, me, not_in_chat)
        present = set(
            await session.scalars(
                select(Participant.participant_id).where(
                    Participant.room_id == not_in_chat, Participant.status == "active"
                )
            )
        )
        peers = [p for p in peers if p.id not in present]
    start = (page - 1) * page_size
    return peers[start : start + page_size], len(peers)


async def can_reach(session: AsyncSession, me: Principal, party_id: str) -> bool:
    """True when ``party_id`` is the caller or one of its peers (so it may be invited)."""
    if party_id == me.id:
        return True
    if party_id in await contact_ids(session, me.id):
        return True
    party = await party_by_id(session, party_id)
    return party is not None and party.owner_id == (me.owner_id or me.id)
