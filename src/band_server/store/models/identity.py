"""People, agents and what proves who they are: API keys, web sessions, and the
single-use invitation and reset links."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from band_protocol import utcnow

from .base import Base, Timestamps, new_id


class User(Timestamps, Base):
    __tablename__ = "users"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(80))
    handle: Mapped[str] = mapped_column(String(80), unique=True)
    email: Mapped[str] = mapped_column(String(200), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200), default=None)
    role: Mapped[str] = mapped_column(String(16), default="user")  # "user" | "admin"
    first_name: Mapped[str | None] = mapped_column(String(80), default=None)
    last_name: Mapped[str | None] = mapped_column(String(80), default=None)
    disabled_at: Mapped[datetime | None] = mapped_column(default=None)
    # An admin's grant: this person may invite people by email (services.identity.account_links).
    may_invite: Mapped[bool] = mapped_column(default=False, server_default=false())


class Agent(Timestamps, Base):
    __tablename__ = "agents"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(24))
    handle: Mapped[str] = mapped_column(String(120), unique=True)
    description: Mapped[str] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class ApiKey(Base):
    """A hashed API key. The plain key is shown once, at creation, and never stored."""

    __tablename__ = "api_keys"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    principal_type: Mapped[str] = mapped_column(String(8))  # "user" | "agent"
    principal_id: Mapped[str] = mapped_column(String(36), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


class WebSession(Base):
    """A browser session for the web app: the cookie holds a random token, the row only its
    hash (its CSRF token is derived from the cookie's, see ``services.web_sessions``)."""

    __tablename__ = "web_sessions"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(36), index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    # What the person's list of sessions shows (services.session_devices).
    user_agent: Mapped[str | None] = mapped_column(String(300), default=None)
    last_used_at: Mapped[datetime | None] = mapped_column(default=None)


class AccountLink(Base):
    """A single-use, expiring link: an invitation to join (``invite``) or a password reset
    (``reset``). Only the SHA-256 of its token is kept (services.identity.account_links)."""

    __tablename__ = "account_links"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    email: Mapped[str] = mapped_column(String(200), index=True)
    user_id: Mapped[str | None] = mapped_column(String(36), default=None)
    created_by: Mapped[str | None] = mapped_column(String(36), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    used_at: Mapped[datetime | None] = mapped_column(default=None)
