"""Delegation: a person lets another owner's agent act for them at a target system.

The envelope rides on ``metadata.delegation`` of a person's message that mentions an agent
the person does not own; the agent redeems it (``POST /agent/delegation/token``) for a
short-lived token the target system checks with the platform (``POST
/delegation/introspect``). The consent model is described in ``docs/delegation.md``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import UUID4, Field

from ._base import RequestModel, WireModel

ENVELOPE_VERSION = 1


class DelegationOriginator(WireModel):
    """The person on whose behalf the agent is asked to act (not the agent's owner)."""

    uuid: str
    handle: str
    display_name: str


class DelegationEnvelope(WireModel):
    """Minted by the platform on a message that crossed an ownership boundary."""

    version: int = ENVELOPE_VERSION
    message_id: str
    minted_at: str
    originator: DelegationOriginator
    hop: dict[str, str] | None = None  # reserved for multi-hop delegation; always null


class DelegationTerminated(WireModel):
    """Minted on an agent's message that mentions another agent while the sender works on a
    delegated request: delegation is single-hop, so the mentioned agent gets no authority."""

    kind: Literal["terminated"] = "terminated"
    reason: str = "forwarding_not_supported"
    version: int = ENVELOPE_VERSION


class TokenExchangeBody(RequestModel):
    """``POST /agent/delegation/token``."""

    audience: UUID4  # the target system's id, as on the consent
    message_id: str = Field(min_length=1, max_length=200)


class OnBehalfOf(WireModel):
    agent_uuid: str
    audience: str
    originator_uuid: str
    originator_handle: str | None = None


class DelegatedToken(WireModel):
    """The exchange's answer (top level, not wrapped in ``data``)."""

    access_token: str
    token_type: Literal["bearer"] = "bearer"
    expires_at: str | None = None
    obo: OnBehalfOf


class SystemRegisterFields(RequestModel):
    name: str = Field(min_length=1, max_length=80)
    description: str | None = Field(default=None, max_length=500)


class SystemRegisterBody(RequestModel):
    """``POST /me/delegation/systems``: ``{"system": {"name", "description"?}}``."""

    system: SystemRegisterFields


class TargetSystem(WireModel):
    """A system people can let agents act at (the ``audience`` of an exchange)."""

    id: str
    name: str
    description: str | None = None
    owner_id: str
    delegation_enabled: bool = True
    inserted_at: str


class SystemCredentials(WireModel):
    api_key: str


class SystemRegistered(WireModel):
    """A registered system and its key (shown once), which it sends to introspect tokens."""

    system: TargetSystem
    credentials: SystemCredentials


class ConsentFields(RequestModel):
    agent_id: str = Field(min_length=1, max_length=200)
    system_id: str = Field(min_length=1, max_length=200)


class ConsentBody(RequestModel):
    """``POST /me/delegation/consents``: ``{"consent": {"agent_id", "system_id"}}``."""

    consent: ConsentFields


class Consent(WireModel):
    """A person's standing permission: this agent may act for them at this system."""

    id: str
    agent_id: str
    agent_handle: str
    system_id: str
    system_name: str
    inserted_at: str
    revoked_at: str | None = None


class IntrospectBody(RequestModel):
    """``POST /delegation/introspect`` (sent by the target system, with its own key)."""

    token: str = Field(min_length=1, max_length=500)


class Actor(WireModel):
    sub: str


class TokenIntrospection(WireModel):
    """RFC 7662-style: ``active`` false says nothing else; ``act`` names the acting agent."""

    active: bool
    sub: str | None = None  # the originator
    username: str | None = None  # the originator's handle
    aud: str | None = None  # the system
    act: Actor | None = None  # the agent acting for ``sub``
    message_id: str | None = None
    iat: int | None = None
    exp: int | None = None
    token_type: Literal["bearer"] | None = None
