"""A person's agents: register, list, delete, and replace keys."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from band.protocol import (
    AgentCredentials,
    AgentInfo,
    AgentRegistered,
    Supersede,
    iso,
    topic,
    utcnow,
)

from ..fanout.bus import Broadcast
from ..store.models import Agent, Participant, Room
from . import accounts
from .contacts import forget_party
from .parties import party_by_id
from .principals import Principal
from .rooms import remove_participant
from .unit import UnitOfWork

Online = Callable[[str], bool]


def agent_info(agent: Agent, online: bool = False) -> AgentInfo:
    return AgentInfo(
        id=agent.id,
        name=agent.name,
        handle=agent.handle,
        description=agent.description,
        owner_uuid=agent.owner_id,
        online=online,
        inserted_at=iso(agent.created_at),
        updated_at=iso(agent.updated_at),
    )


async def list_agents(
    session: AsyncSession, owner: Principal, *, page: int, page_size: int, online: Online
) -> tuple[list[AgentInfo], int]:
    where = (Agent.owner_id == owner.id) & Agent.deleted_at.is_(None)
    total = await session.scalar(select(func.count()).select_from(Agent).where(where)) or 0
    rows = await session.scalars(
        select(Agent)
        .where(where)
        .order_by(Agent.created_at, Agent.id)
        .offset((page - 1) * page_size)
        .limit(page_size)
    )
    return [agent_info(a, online(a.id)) for a in rows], int(total)


async def register_agent(
    session: AsyncSession, owner: Principal, *, name: str, description: str
) -> AgentRegistered:
    """Create an agent and its first key; the plain key exists only in this answer."""
    user = await accounts.get_user(session, owner.id)
    agent, key = await accounts.create_agent(session, user, name=name, description=description)
    return AgentRegistered(agent=agent_info(agent), credentials=AgentCredentials(api_key=key))


def _end_sessions(agent_id: str, reason: str, message: str) -> Broadcast:
    """Tell the agent's live sockets they are finished (not retryable) and close them."""
    payload = Supersede(reason=reason, message=message, retryable=False).model_dump(mode="json")
    return Broadcast(
        topic=topic("agent_control", agent_id),
        event="supersede",
        payload=payload,
        agents=frozenset({agent_id}),
        users=False,
        meta={"close_principal": agent_id, "close_code": 1008},
    )


async def regenerate_key(uow: UnitOfWork, owner: Principal, agent_id: str) -> AgentRegistered:
    """Revoke every key of the agent and issue a new one; live sockets on old keys are closed."""
    agent = await accounts.owned_agent(uow.session, owner.id, agent_id)
    key = await accounts.regenerate_agent_key(uow.session, agent)
    uow.emit(_end_sessions(agent.id, "key_revoked", "The agent's API key was replaced"))
    return AgentRegistered(agent=agent_info(agent), credentials=AgentCredentials(api_key=key))


async def delete_agent(uow: UnitOfWork, owner: Principal, agent_id: str) -> AgentInfo:
    """Soft-delete: leave every room, drop contacts, revoke keys, end live sockets."""
    session = uow.session
    agent = await accounts.owned_agent(session, owner.id, agent_id)
    me = accounts.agent_principal(agent)
    rooms = await session.scalars(
        select(Room)
        .join(Participant, Participant.room_id == Room.id)
        .where(
            Participant.participant_id == agent.id,
            Participant.status == "active",
            Room.deleted_at.is_(None),
        )
    )
    for room in list(rooms):
        _, broadcasts = await remove_participant(session, me, room, agent.id)
        uow.emit(*broadcasts)
    party = await party_by_id(session, agent.id)
    if party is not None:
        await forget_party(uow, party)
    await accounts.revoke_keys(session, agent.id)
    agent.deleted_at = utcnow()
    await session.flush()
    uow.emit(_end_sessions(agent.id, "agent_deleted", "The agent was deleted"))
    return agent_info(agent)
