"""A person's agents: register, list, delete, and replace keys."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import ColumnElement, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import (
    AgentCredentials,
    AgentDeleted,
    AgentInfo,
    AgentRegistered,
    Supersede,
    topic,
    utcnow,
)
from band_server.errors import ValidationFailed
from band_server.fanout.bus import Broadcast
from band_server.services import keyset
from band_server.services.contacts.requests import forget_party
from band_server.services.identity import accounts
from band_server.services.identity.parties import party_by_id
from band_server.services.identity.principals import Principal
from band_server.services.rooms.membership import joined_rooms, remove_participant
from band_server.services.unit import UnitOfWork
from band_server.services.views import from_row
from band_server.store.models import Agent, Delivery, DeliveryAttempt, Memory

Online = Callable[[str], bool]


def agent_info(agent: Agent, online: bool = False) -> AgentInfo:
    return from_row(AgentInfo, agent, owner_uuid=agent.owner_id, online=online)


AgentSort = Literal["name", "inserted_at", "updated_at"]
SORT_COLUMNS = {"name": Agent.name, "inserted_at": Agent.created_at, "updated_at": Agent.updated_at}
AVAILABLE_FILTERS = [
    {"param": "name", "label": "Name contains", "type": "string"},
    {"param": "is_external", "label": "Runs its own loop", "type": "boolean"},
    {"param": "listed_in_directory", "label": "Listed in the directory", "type": "boolean"},
]
SORTABLE_FIELDS = [
    {"param": "name", "label": "Name"},
    {"param": "inserted_at", "label": "Created"},
    {"param": "updated_at", "label": "Last changed"},
]


@dataclass(frozen=True)
class AgentQuery(keyset.Asked):
    """Filters, sort and window of ``GET /me/agents`` (cursor, or the deprecated page)."""

    name: str | None = None
    is_external: bool | None = None
    listed_in_directory: bool | None = None
    sort: AgentSort = "inserted_at"


async def list_agents(
    session: AsyncSession, owner: Principal, query: AgentQuery, *, online: Online
) -> tuple[list[AgentInfo], dict[str, Any]]:
    """One page of the person's live agents and the metadata (keyset and offset keys)."""
    where: list[ColumnElement[bool]] = [Agent.owner_id == owner.id, Agent.deleted_at.is_(None)]
    if query.name:
        where.append(func.lower(Agent.name).contains(query.name.strip().lower(), autoescape=True))
    # Every agent here is external (runs its own loop) and none is in a public directory.
    if query.is_external is False or query.listed_in_directory is True:
        where.append(Agent.id.is_(None))
    total = int(await session.scalar(select(func.count()).select_from(Agent).where(*where)) or 0)
    column = SORT_COLUMNS[query.sort]
    stmt, shape = keyset.window(select(Agent).where(*where), column, Agent.id, query.sort, query)
    rows = list(await session.scalars(stmt))
    size = shape.size
    has_more = len(rows) > size
    rows = rows[:size]
    meta: dict[str, Any] = {
        "has_more": has_more,
        "limit": size,
        "next_cursor": shape.next_cursor(rows[-1] if rows else None, has_more),
        "page": shape.number,
        "page_size": size,
        "total_count": total,
        "total_pages": (total + size - 1) // size,
        "available_filters": AVAILABLE_FILTERS,
        "sortable_fields": SORTABLE_FIELDS,
    }
    return [agent_info(a, online(a.id)) for a in rows], meta


async def owned_agents(session: AsyncSession, owner: Principal) -> list[Agent]:
    """Every live agent of the person, oldest first (the web app's Agents page)."""
    rows = await session.scalars(
        select(Agent)
        .where(Agent.owner_id == owner.id, Agent.deleted_at.is_(None))
        .order_by(Agent.created_at, Agent.id)
    )
    return list(rows)


async def register_agent(
    session: AsyncSession,
    owner: Principal,
    *,
    name: str,
    description: str,
    handle: str | None = None,
    tags: Sequence[str] = (),
) -> AgentRegistered:
    """Create an agent and its first key; the plain key exists only in this answer."""
    user = await accounts.get_user(session, owner.id)
    agent, key = await accounts.create_agent(
        session, user, name=name, description=description, handle=handle, tags=tags
    )
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


async def execution_count(session: AsyncSession, agent_id: str) -> int:
    """How many messages the agent was handed (its execution history)."""
    count = await session.scalar(
        select(func.count()).select_from(Delivery).where(Delivery.agent_id == agent_id)
    )
    return int(count or 0)


async def delete_agent(
    uow: UnitOfWork, owner: Principal, agent_id: str, *, force: bool = False
) -> AgentDeleted:
    """Soft-delete: leave every room, drop contacts, revoke keys, end live sockets.

    An agent with execution history (messages it was handed) is refused with 422
    ``execution_history_exists`` unless ``force``; with ``force`` that history (its delivery
    records and their attempts; the messages stay in their rooms) is erased first.
    """
    session = uow.session
    agent = await accounts.owned_agent(session, owner.id, agent_id)
    executions = await execution_count(session, agent.id)
    if executions and not force:
        raise ValidationFailed(
            f"The agent has {executions} executions; pass force=true to delete them too",
            {"/force": ["must be true for an agent with execution history"]},
            code="execution_history_exists",
        )
    if executions:
        mine = select(Delivery.id).where(Delivery.agent_id == agent.id)
        await session.execute(delete(DeliveryAttempt).where(DeliveryAttempt.delivery_id.in_(mine)))
        await session.execute(delete(Delivery).where(Delivery.agent_id == agent.id))
    me = accounts.agent_principal(agent)
    rooms = await session.scalars(joined_rooms(agent.id))
    for room in list(rooms):
        _, broadcasts = await remove_participant(session, me, room, agent.id)
        uow.emit(*broadcasts)
    party = await party_by_id(session, agent.id)
    if party is not None:
        await forget_party(uow, party)
    await session.execute(delete(Memory).where(Memory.owner_id == agent.id))
    await accounts.revoke_keys(session, agent.id)
    agent.deleted_at = utcnow()
    await session.flush()
    uow.emit(_end_sessions(agent.id, "agent_deleted", "The agent was deleted"))
    info = agent_info(agent).model_dump()
    return AgentDeleted(**info, executions_deleted=executions)
