"""Delegation: the systems agents may act at, people's consents, and the tokens minted."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, new_id


class TargetSystem(Base):
    """A system people can let other owners' agents act at; the ``audience`` of an exchange.

    It checks the tokens agents present to it with the platform, sending its own key (stored
    hashed, shown once at registration).
    """

    __tablename__ = "delegation_systems"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    name: Mapped[str] = mapped_column(String(80))
    description: Mapped[str | None] = mapped_column(Text, default=None)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    delegation_enabled: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class DelegationConsent(Base):
    """A person's consent: this agent (of another owner) may act for them at this system."""

    __tablename__ = "delegation_consents"
    __table_args__ = (UniqueConstraint("person_id", "agent_id", "system_id"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    person_id: Mapped[str] = mapped_column(String(36), index=True)
    agent_id: Mapped[str] = mapped_column(String(36))
    system_id: Mapped[str] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


class DelegatedToken(Base):
    """A token minted by an exchange, stored hashed; one row per successful exchange."""

    __tablename__ = "delegated_tokens"
    __table_args__ = (Index("ix_delegated_tokens_message_agent", "message_id", "agent_id"),)
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    consent_id: Mapped[str] = mapped_column(String(36), index=True)
    system_id: Mapped[str] = mapped_column(String(36))
    originator_id: Mapped[str] = mapped_column(String(36))
    agent_id: Mapped[str] = mapped_column(String(36))
    message_id: Mapped[str] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
