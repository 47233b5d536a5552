"""Parties: a person or a live (not deleted) agent, looked up by id or by handle."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.errors import NotFound
from band_server.services.identity.principals import Principal
from band_server.store.models import Agent, User

PartyType = Literal["User", "Agent"]


@dataclass(frozen=True)
class Party:
    """Who someone is, as contacts, peers and rooms show them."""

    id: str
    type: PartyType
    name: str
    handle: str
    description: str | None
    owner_id: str  # the person accountable for it: an agent's owner, or the person themself

    def card(self) -> dict[str, Any]:
        """What every listing of a party shows: id, handle, name, type and description."""
        return {
            "id": self.id,
            "handle": self.handle,
            "name": self.name,
            "type": self.type,
            "description": self.description,
        }

    def same_account(self, other: Party) -> bool:
        """True when both belong to one person (that person, or sibling agents)."""
        return self.owner_id == other.owner_id


def _of_agent(agent: Agent) -> Party:
    return Party(agent.id, "Agent", agent.name, agent.handle, agent.description, agent.owner_id)


def _of_user(user: User) -> Party:
    return Party(user.id, "User", user.name, user.handle, None, user.id)


def normalise_handle(handle: str) -> str:
    """``@alice`` and ``Alice`` both name ``alice``."""
    return handle.strip().removeprefix("@").lower()


async def party_by_id(session: AsyncSession, party_id: str) -> Party | None:
    agent = await session.get(Agent, party_id)
    if agent is not None:
        return _of_agent(agent) if agent.deleted_at is None else None
    user = await session.get(User, party_id)
    return _of_user(user) if user is not None else None


async def party_by_handle(session: AsyncSession, handle: str) -> Party | None:
    name = normalise_handle(handle)
    if not name:
        return None
    if "/" in name:
        agent = await session.scalar(
            select(Agent).where(Agent.handle == name, Agent.deleted_at.is_(None))
        )
        return _of_agent(agent) if agent is not None else None
    user = await session.scalar(select(User).where(User.handle == name))
    return _of_user(user) if user is not None else None


async def require_party(
    session: AsyncSession, *, handle: str | None, party_id: str | None
) -> Party:
    """The party named by handle (preferred) or id, or 404."""
    party = None
    if handle:
        party = await party_by_handle(session, handle)
    elif party_id:
        party = await party_by_id(session, party_id)
    if party is None:
        raise NotFound(f"No one with handle '{handle}'" if handle else "No such person or agent")
    return party


async def parties_by_ids(session: AsyncSession, ids: Iterable[str]) -> dict[str, Party]:
    """Every live party among ``ids``, keyed by id (deleted agents and unknown ids are left out)."""
    wanted = set(ids)
    if not wanted:
        return {}
    out: dict[str, Party] = {}
    agents = await session.scalars(
        select(Agent).where(Agent.id.in_(wanted), Agent.deleted_at.is_(None))
    )
    for a in agents:
        out[a.id] = _of_agent(a)
    users = await session.scalars(select(User).where(User.id.in_(wanted - set(out))))
    for u in users:
        out[u.id] = _of_user(u)
    return out


async def agents_of(session: AsyncSession, owner_id: str) -> list[Party]:
    """A person's live agents, by name."""
    rows = await session.scalars(
        select(Agent)
        .where(Agent.owner_id == owner_id, Agent.deleted_at.is_(None))
        .order_by(Agent.name, Agent.id)
    )
    return [_of_agent(a) for a in rows]


def party_of(principal: Principal) -> Party:
    """The caller as a party (descriptions are not needed for the caller itself)."""
    return Party(
        principal.id,
        principal.sender_type,
        principal.name,
        principal.handle,
        None,
        principal.owner_id or principal.id,
    )
