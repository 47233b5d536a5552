"""Delegated-token exchange: an agent acts for the person who asked it, at one target system.

A person's message that mentions an agent of another owner carries a platform-minted
envelope (``metadata.delegation``). The mentioned agent redeems it for a short-lived token
bound to that message; the target system checks the token with the platform (introspection).
Every check fails closed; the order is the one ``band-client-rest`` documents. The consent
model (systems, consents) is in ``docs/delegation.md`` and ``services/delegation_consents``.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import iso
from band_protocol.delegation import (
    Actor,
    DelegatedToken,
    DelegationEnvelope,
    DelegationOriginator,
    DelegationTerminated,
    OnBehalfOf,
    TokenIntrospection,
)
from band_server.errors import Forbidden, NotFound, Unauthorized
from band_server.services.delegation.consents import seed_consent
from band_server.services.identity.keys import hash_key
from band_server.services.identity.principals import Principal
from band_server.services.rooms.membership import Member, membership
from band_server.store.models import (
    Agent,
    DelegationConsent,
    Delivery,
    Message,
    Room,
    TargetSystem,
    User,
)
from band_server.store.models import DelegatedToken as TokenRow

__all__ = [
    "Policy",
    "envelope",
    "exchange",
    "forwarding_marker",
    "introspect",
    "seed_consent",
]

TOKEN_PREFIX = "band_d_"  # nosec B105 # a token's public prefix, not a password


@dataclass(frozen=True)
class Policy:
    """How long a message may be redeemed, how long a token lives, how often per message."""

    window: timedelta = timedelta(minutes=10)
    token_ttl: timedelta = timedelta(minutes=5)
    per_message: int = 3


# -- minting the envelope (on posting) -------------------------------------------------------


def envelope(
    sender: Principal, routed: Sequence[Member], message_id: str, now: datetime
) -> dict[str, Any] | None:
    """The envelope for a person's message that mentions an agent they do not own, or None."""
    if sender.is_agent:
        return None
    # A loop, not ``any`` over a generator (a generator object and a frame per post).
    sender_id = sender.id
    for m in routed:
        if m.type == "Agent" and m.owner_id not in (None, sender_id):
            break
    else:
        return None
    originator = DelegationOriginator(
        uuid=sender.id, handle=sender.handle, display_name=sender.name
    )
    minted = DelegationEnvelope(message_id=message_id, minted_at=iso(now), originator=originator)
    return minted.model_dump(mode="json")


def _is_envelope(value: object) -> bool:
    return isinstance(value, dict) and "originator" in value and "kind" not in value


async def forwarding_marker(
    session: AsyncSession, sender: Principal, room_id: str, routed: Sequence[Member]
) -> dict[str, Any] | None:
    """The terminated marker when an agent working on a delegated request mentions another
    agent (delegation is single-hop), or None."""
    if not sender.is_agent or not any(m.type == "Agent" for m in routed):
        return None
    held = await session.scalars(
        select(Message.meta)
        .join(Delivery, Delivery.message_id == Message.id)
        .where(
            Delivery.agent_id == sender.id,
            Delivery.room_id == room_id,
            Delivery.status == "processing",
        )
    )
    if any(_is_envelope((meta or {}).get("delegation")) for meta in held):
        return DelegationTerminated().model_dump(mode="json")
    return None


# -- the exchange ----------------------------------------------------------------------------


def _refuse(code: str, message: str) -> Forbidden:
    return Forbidden(message, code=code)


async def _delivered(session: AsyncSession, agent: Principal, message_id: str) -> Message:
    """The message, if it was delivered to the agent in a room it is still in (else 404)."""
    missing = NotFound("Message not found", code="message_not_found")
    # Locks the agent's delivery row on PostgreSQL, so concurrent exchanges for one message
    # take turns and the per-message cap holds; SQLite has one writer anyway.
    delivery = await session.scalar(
        select(Delivery)
        .where(Delivery.message_id == message_id, Delivery.agent_id == agent.id)
        .with_for_update()
    )
    if delivery is None:
        raise missing
    msg = await session.get(Message, message_id)
    room = await session.get(Room, delivery.room_id)
    if msg is None or room is None or room.deleted_at is not None:
        raise missing
    if await membership(session, room.id, agent.id) is None:
        raise missing
    return msg


async def exchange(
    session: AsyncSession,
    agent: Principal,
    *,
    audience: str,
    message_id: str,
    policy: Policy,
    now: datetime,
) -> DelegatedToken:
    """Mint a token acting for the message's originator at ``audience`` (a system id).

    The caller has already passed the per-agent rate limit. Refusals: 404 for a message not
    delivered to the agent; 403 ``no_delegation``, ``window_expired``,
    ``originator_not_participant``, ``exchange_limit_reached``, ``consent_required``,
    ``delegation_disabled``. Only a minted token counts against the per-message cap.
    """
    msg = await _delivered(session, agent, message_id)
    found = (msg.meta or {}).get("delegation")
    if not _is_envelope(found):
        raise _refuse("no_delegation", "This message did not cross an ownership boundary")
    sealed = DelegationEnvelope.model_validate(found)
    originator_id = sealed.originator.uuid
    if originator_id == agent.owner_id or sealed.message_id != msg.id:
        raise _refuse("no_delegation", "This message did not cross an ownership boundary")
    minted_at = datetime.fromisoformat(sealed.minted_at.replace("Z", "+00:00"))
    if now - minted_at > policy.window:
        raise _refuse("window_expired", "The window for acting on this message has closed")
    person = await session.get(User, originator_id)
    if person is None or person.disabled_at is not None:
        raise _refuse("originator_not_participant", "The person who asked has left the room")
    if await membership(session, msg.room_id, originator_id) is None:
        raise _refuse("originator_not_participant", "The person who asked has left the room")
    used = await session.scalar(
        select(func.count())
        .select_from(TokenRow)
        .where(TokenRow.message_id == msg.id, TokenRow.agent_id == agent.id)
    )
    if int(used or 0) >= policy.per_message:
        raise _refuse("exchange_limit_reached", "This message's exchanges are used up")
    row = await session.execute(
        select(DelegationConsent, TargetSystem)
        .join(TargetSystem, TargetSystem.id == DelegationConsent.system_id)
        .where(
            DelegationConsent.person_id == originator_id,
            DelegationConsent.agent_id == agent.id,
            DelegationConsent.system_id == audience,
            DelegationConsent.revoked_at.is_(None),
            TargetSystem.deleted_at.is_(None),
        )
    )
    pair = row.first()
    if pair is None:
        raise _refuse("consent_required", "The person has not let this agent act there")
    consent, system = pair
    if not system.delegation_enabled:
        raise _refuse("delegation_disabled", "This system does not accept delegated tokens")
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    expires = now + policy.token_ttl
    session.add(
        TokenRow(
            token_hash=hash_key(token),
            consent_id=consent.id,
            system_id=system.id,
            originator_id=originator_id,
            agent_id=agent.id,
            message_id=msg.id,
            created_at=now,
            expires_at=expires,
        )
    )
    await session.flush()
    return DelegatedToken(
        access_token=token,
        expires_at=iso(expires),
        obo=OnBehalfOf(
            agent_uuid=agent.id,
            audience=system.id,
            originator_uuid=originator_id,
            originator_handle=person.handle,
        ),
    )


# -- introspection (the target system asks) --------------------------------------------------


async def authenticate_system(session: AsyncSession, key: str | None) -> TargetSystem:
    """The system behind a system key, or 401."""
    if not key:
        raise Unauthorized("Missing system key (send it in the X-API-Key header)")
    found = select(TargetSystem).where(TargetSystem.key_hash == hash_key(key))
    system = await session.scalar(found)
    if system is None or system.deleted_at is not None:
        raise Unauthorized("Invalid or revoked system key")
    return system


def _aware(dt: datetime) -> datetime:
    # SQLite hands timestamps back without a zone; they were written in UTC.
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


async def introspect(
    session: AsyncSession, system: TargetSystem, token: str, now: datetime
) -> TokenIntrospection:
    """Whether ``token`` is live *for this system*, and for whom; nothing else when it is not
    (unknown, expired, another system's, consent revoked, agent deleted, person disabled)."""
    inactive = TokenIntrospection(active=False)
    row = await session.get(TokenRow, hash_key(token))
    if row is None or row.system_id != system.id or not system.delegation_enabled:
        return inactive
    if _aware(row.expires_at) <= now:
        return inactive
    consent = await session.get(DelegationConsent, row.consent_id)
    agent = await session.get(Agent, row.agent_id)
    person = await session.get(User, row.originator_id)
    if consent is None or consent.revoked_at is not None:
        return inactive
    if agent is None or agent.deleted_at is not None:
        return inactive
    if person is None or person.disabled_at is not None:
        return inactive
    return TokenIntrospection(
        active=True,
        sub=person.id,
        username=person.handle,
        aud=system.id,
        act=Actor(sub=agent.id),
        message_id=row.message_id,
        iat=int(_aware(row.created_at).timestamp()),
        exp=int(_aware(row.expires_at).timestamp()),
        token_type="bearer",  # nosec B106 # the OAuth token type's name, not a password
    )
