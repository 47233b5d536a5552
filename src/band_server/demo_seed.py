"""The demo's identities: one person, two agents and a room, created once and then reused.

API keys exist in plain text only when issued, so they are kept (owner-only) in
``<data dir>/demo.json``; a rerun reuses what the file names and still exists in the
database, and repairs the rest (a lost key is reissued, a missing agent is recreated).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from .context import Platform
from .errors import NotFound, Unauthorized
from .services.identity import accounts
from .services.rooms import membership as rooms
from .services.unit import UnitOfWork, write
from .store.models import Agent, Room, User

PERSON_HANDLE = "demo"
PERSON_NAME = "Demo Person"
ROOM_TITLE = "Demo room"
AGENT_SPECS: tuple[tuple[str, str], ...] = (
    ("Helper", "A friendly helper that answers questions in the demo room."),
    ("Reviewer", "A careful reviewer that points out risks and missing details."),
)


@dataclass
class Identity:
    """A principal the demo acts as, with its plain API key."""

    id: str
    name: str
    handle: str
    api_key: str


@dataclass
class DemoIdentities:
    """Everything the demo created; serialised as ``demo.json``."""

    person: Identity
    room_id: str
    agents: list[Identity] = field(default_factory=list)

    def to_json(self) -> str:
        """The file content (keys included: the file is owner-only)."""
        return json.dumps(asdict(self), indent=2)

    @classmethod
    def from_json(cls, text: str) -> DemoIdentities:
        """Parse a ``demo.json``; raises ValueError/KeyError/TypeError when malformed."""
        raw: dict[str, Any] = json.loads(text)
        return cls(
            person=Identity(**raw["person"]),
            room_id=str(raw["room_id"]),
            agents=[Identity(**a) for a in raw.get("agents", [])],
        )


def load(path: Path) -> DemoIdentities | None:
    """The saved identities, or None when the file is missing or unreadable."""
    try:
        return DemoIdentities.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save(path: Path, identities: DemoIdentities) -> None:
    """Write the file readable by its owner only (it holds API keys)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(identities.to_json())


async def _reusable(session: AsyncSession, saved: Identity, principal_id: str) -> bool:
    """Whether the saved identity is this principal and its saved key still works."""
    if saved.id != principal_id:
        return False
    try:
        principal = await accounts.authenticate(session, saved.api_key)
    except Unauthorized:
        return False
    return principal.id == principal_id


async def _person(session: AsyncSession, saved: Identity | None) -> tuple[User, str]:
    user = await session.scalar(select(User).where(User.handle == PERSON_HANDLE))
    if user is None:
        return await accounts.create_user(session, name=PERSON_NAME, handle=PERSON_HANDLE)
    if saved is not None and await _reusable(session, saved, user.id):
        return user, saved.api_key
    return user, await accounts.issue_key(session, "user", user.id)


async def _agent(
    session: AsyncSession, owner: User, name: str, description: str, saved: Identity | None
) -> tuple[Agent, str]:
    agent = await session.get(Agent, saved.id) if saved is not None else None
    if agent is None or agent.deleted_at is not None or agent.owner_id != owner.id:
        agent = await session.scalar(
            select(Agent).where(
                Agent.owner_id == owner.id, Agent.name == name, Agent.deleted_at.is_(None)
            )
        )
    if agent is None:
        return await accounts.create_agent(session, owner, name=name, description=description)
    if saved is not None and await _reusable(session, saved, agent.id):
        return agent, saved.api_key
    return agent, await accounts.regenerate_agent_key(session, agent)


async def _room(uow: UnitOfWork, owner: User, saved_id: str | None, agent_ids: list[str]) -> str:
    actor = accounts.user_principal(owner)
    room: Room | None = None
    if saved_id is not None:
        try:
            room = await rooms.room_for(uow.session, actor, saved_id)
        except NotFound:
            room = None
    if room is None:  # the file was lost: the person's earlier demo room, if any
        room = await uow.session.scalar(
            select(Room)
            .where(Room.owner_id == owner.id, Room.title == ROOM_TITLE, Room.deleted_at.is_(None))
            .order_by(Room.created_at)
            .limit(1)
        )
    if room is None:
        room, broadcasts = await rooms.create_room(
            uow.session, actor, title=ROOM_TITLE, task_id=None
        )
        uow.emit(*broadcasts)
    for agent_id in agent_ids:
        if not await rooms.is_member(uow.session, room.id, agent_id):
            _, broadcasts = await rooms.add_participant(uow.session, actor, room, agent_id)
            uow.emit(*broadcasts)
    return room.id


async def ensure_demo_identities(platform: Platform, path: Path) -> DemoIdentities:
    """Create or reuse the demo's person, agents and room, and save them to ``path``."""
    saved = load(path)
    saved_agents = {a.name: a for a in saved.agents} if saved else {}
    async with write(platform) as uow:
        user, user_key = await _person(uow.session, saved.person if saved else None)
        agents: list[Identity] = []
        for name, description in AGENT_SPECS:
            agent, key = await _agent(uow.session, user, name, description, saved_agents.get(name))
            agents.append(Identity(agent.id, agent.name, agent.handle, key))
        room_id = await _room(uow, user, saved.room_id if saved else None, [a.id for a in agents])
        identities = DemoIdentities(
            person=Identity(user.id, user.name, user.handle, user_key),
            room_id=room_id,
            agents=agents,
        )
    save(path, identities)
    return identities
