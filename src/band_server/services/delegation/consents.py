"""Target systems and people's consents: who may let which agent act for them, and where.

A person registers a target system (it gets a key, shown once, to introspect tokens). Any
person may then consent that one agent of another owner acts for them at one system; a
consent is revoked by the person who gave it, and deleting a system ends every consent and
token for it. See ``docs/delegation.md``.
"""

from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow
from band_protocol.delegation import Consent, SystemCredentials, SystemRegistered, TargetSystem
from band_server.errors import Forbidden, NotFound, ValidationFailed
from band_server.services.identity.accounts import get_user, user_principal
from band_server.services.identity.keys import hash_key
from band_server.services.identity.principals import Principal
from band_server.services.keyset import offset_page
from band_server.services.views import from_row
from band_server.store.models import Agent, DelegationConsent
from band_server.store.models import TargetSystem as SystemRow

SYSTEM_KEY_PREFIX = "band_s_"


def system_view(row: SystemRow) -> TargetSystem:
    return from_row(TargetSystem, row)


def consent_view(row: DelegationConsent, agent: Agent, system: SystemRow) -> Consent:
    return from_row(Consent, row, agent_handle=agent.handle, system_name=system.name)


async def register_system(
    session: AsyncSession, owner: Principal, *, name: str, description: str | None
) -> SystemRegistered:
    """A new target system owned by ``owner``, with its key (the only time it is shown)."""
    if not name.strip():
        raise ValidationFailed("name can't be blank", {"/system/name": ["can't be blank"]})
    key = SYSTEM_KEY_PREFIX + secrets.token_urlsafe(32)
    row = SystemRow(
        owner_id=owner.id,
        name=name.strip(),
        description=(description or "").strip() or None,
        key_hash=hash_key(key),
    )
    session.add(row)
    await session.flush()
    return SystemRegistered(system=system_view(row), credentials=SystemCredentials(api_key=key))


async def list_systems(
    session: AsyncSession, *, page: int, page_size: int
) -> tuple[list[TargetSystem], int]:
    """Every live system of the platform (people pick one to consent to), oldest first."""
    live = select(SystemRow).where(SystemRow.deleted_at.is_(None))
    order = (SystemRow.created_at, SystemRow.id)
    rows, total = await offset_page(session, live, *order, page=page, page_size=page_size)
    return [system_view(r) for r in rows], total


async def live_system(session: AsyncSession, system_id: str) -> SystemRow:
    row = await session.get(SystemRow, system_id)
    if row is None or row.deleted_at is not None:
        raise NotFound("System not found")
    return row


async def delete_system(session: AsyncSession, owner: Principal, system_id: str) -> TargetSystem:
    """Delete a system its owner registered (403 for anyone else): its key, every consent and
    every token for it stop working at once."""
    row = await live_system(session, system_id)
    if row.owner_id != owner.id:
        raise Forbidden("Only the person who registered a system can delete it")
    row.deleted_at = utcnow()
    await session.flush()
    return system_view(row)


async def grant(
    session: AsyncSession, person: Principal, *, agent_id: str, system_id: str
) -> Consent:
    """Let ``agent_id`` (another owner's agent) act for ``person`` at ``system_id``.

    Granting again what is already granted answers the same consent; a revoked one is given
    back. 404 for an unknown agent or system; 422 ``own_agent`` for one's own agent (it acts
    for its owner without delegation).
    """
    agent = await session.get(Agent, agent_id)
    if agent is None or agent.deleted_at is not None:
        raise NotFound("Agent not found")
    if agent.owner_id == person.id:
        raise ValidationFailed(
            "your own agents act for you without delegation",
            {"/consent/agent_id": ["is your own agent"]},
            code="own_agent",
        )
    system = await live_system(session, system_id)
    key = {"person_id": person.id, "agent_id": agent.id, "system_id": system.id}
    row = await session.scalar(select(DelegationConsent).filter_by(**key))
    if row is None:
        row = DelegationConsent(**key)
        session.add(row)
    elif row.revoked_at is not None:
        row.revoked_at = None
        row.created_at = utcnow()
    await session.flush()
    return consent_view(row, agent, system)


async def list_consents(session: AsyncSession, person: Principal) -> list[Consent]:
    """The person's live consents (to live agents at live systems), oldest first."""
    rows = await session.execute(
        select(DelegationConsent, Agent, SystemRow)
        .join(Agent, Agent.id == DelegationConsent.agent_id)
        .join(SystemRow, SystemRow.id == DelegationConsent.system_id)
        .where(
            DelegationConsent.person_id == person.id,
            DelegationConsent.revoked_at.is_(None),
            Agent.deleted_at.is_(None),
            SystemRow.deleted_at.is_(None),
        )
        .order_by(DelegationConsent.created_at, DelegationConsent.id)
    )
    return [consent_view(c, a, s) for c, a, s in rows]


async def revoke(session: AsyncSession, person: Principal, consent_id: str) -> Consent:
    """Withdraw a consent the person gave (404 for anyone else's); tokens minted under it
    stop being active at once."""
    row = await session.get(DelegationConsent, consent_id)
    if row is None or row.person_id != person.id or row.revoked_at is not None:
        raise NotFound("Consent not found")
    agent = await session.get(Agent, row.agent_id)
    system = await session.get(SystemRow, row.system_id)
    if agent is None or system is None:
        raise NotFound("Consent not found")
    row.revoked_at = utcnow()
    await session.flush()
    return consent_view(row, agent, system)


async def seed_consent(
    session: AsyncSession, *, person_id: str, agent_id: str, name: str = "Calendar"
) -> str:
    """Register a system for ``person_id`` and consent ``agent_id`` there; its id (the
    ``audience``). For seeding test worlds and demos."""
    person = user_principal(await get_user(session, person_id))
    made = await register_system(session, person, name=name, description=None)
    await grant(session, person, agent_id=agent_id, system_id=made.system.id)
    return made.system.id
