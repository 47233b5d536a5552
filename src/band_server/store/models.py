"""SQLAlchemy models. Every table is created by an Alembic migration, never by ``create_all``."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import uuid_utils
from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from band_protocol import utcnow


def new_id() -> str:
    return str(uuid.uuid4())


def new_ordered_id() -> str:
    """A UUIDv7 (RFC 9562) for the rows every message writes (its message, deliveries and
    attempts): the time leads, so their primary keys, and the indexes that lead with a message
    id, grow at the right edge of the B-tree instead of on a random page (a UUIDv4 key made
    the message insert 2-3x dearer, more as the table grows: docs/decisions.md). Still 74
    random bits, and nothing orders by these ids."""
    return str(uuid_utils.uuid7())


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, datetime: DateTime(timezone=True)}


class Timestamps:
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


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
    # An admin's grant: this person may invite people by email (services.account_links).
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


class Room(Timestamps, Base):
    __tablename__ = "rooms"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    title: Mapped[str | None] = mapped_column(String(200), default=None)
    task_id: Mapped[str | None] = mapped_column(String(200), default=None)
    owner_id: Mapped[str] = mapped_column(String(36))
    owner_type: Mapped[str] = mapped_column(String(8))  # "User" | "Agent"
    last_seq: Mapped[int] = mapped_column(Integer, default=0)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class Participant(Base):
    __tablename__ = "participants"
    __table_args__ = (UniqueConstraint("room_id", "participant_id"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), index=True)
    participant_id: Mapped[str] = mapped_column(String(36), index=True)
    participant_type: Mapped[str] = mapped_column(String(8))  # "User" | "Agent"
    role: Mapped[str] = mapped_column(String(8), default="member")
    status: Mapped[str] = mapped_column(String(16), default="active")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_read_seq: Mapped[int] = mapped_column(Integer, default=0)  # people's unread counts


class Message(Timestamps, Base):
    """A text message or an event (tool_call, tool_result, thought, error, task, attention)."""

    __tablename__ = "messages"
    __table_args__ = (
        UniqueConstraint("room_id", "seq"),
        # A keyed speech post's Idempotency-Key rides on its message
        # (services.idempotency.row_keys): the index is the claim, and holds only the keyed rows
        # of the last day or so.
        Index(
            "ix_messages_idem_key",
            "idem_key",
            unique=True,
            sqlite_where=text("idem_key IS NOT NULL"),
            postgresql_where=text("idem_key IS NOT NULL"),
        ),
        # The sweep of keys older than a day reads only those (created_at only grows: each
        # keyed post appends to the end of it).
        Index(
            "ix_messages_idem_created",
            "created_at",
            sqlite_where=text("idem_key IS NOT NULL"),
            postgresql_where=text("idem_key IS NOT NULL"),
        ),
        # A room's texts by sequence (migration 0016): its newest text and a person's unread
        # count from their read marker read these entries alone, never the room's history
        # (services.rooms.rows).
        Index(
            "ix_messages_room_texts",
            "room_id",
            "seq",
            "sender_id",
            sqlite_where=text("message_type = 'text'"),
            postgresql_where=text("message_type = 'text'"),
        ),
        # A room's last activity: its newest created_at, one lookup (migration 0016).
        Index("ix_messages_room_created", "room_id", "created_at"),
        # Full-text search on PostgreSQL (services.search; SQLite has its FTS5 table, made by
        # migration 0013 with its triggers, outside the models).
        Index(
            "ix_messages_search",
            text("to_tsvector('simple'::regconfig, content)"),
            postgresql_using="gin",
            postgresql_where=text("message_type = 'text'"),
        ).ddl_if(dialect="postgresql"),
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_ordered_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"))
    seq: Mapped[int] = mapped_column(Integer)
    sender_id: Mapped[str] = mapped_column(String(36))
    sender_type: Mapped[str] = mapped_column(String(8))
    sender_name: Mapped[str | None] = mapped_column(String(200), default=None)
    message_type: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    # Descriptors of the room files shown with a text message (immutable, copied at post time).
    attachments: Mapped[list[dict[str, Any]] | None] = mapped_column(JSON, default=None)
    # The hash of the poster's Idempotency-Key (``replay_seal.key_id``) and of the request's
    # body, for 24 hours after a keyed post (then swept).
    idem_key: Mapped[str | None] = mapped_column(String(64))
    idem_body: Mapped[str | None] = mapped_column(String(64))


class MessageMention(Base):
    __tablename__ = "mentions"
    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id"), primary_key=True)
    participant_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    room_id: Mapped[str] = mapped_column(String(36))
    __table_args__ = (Index("ix_mentions_participant_room", "participant_id", "room_id"),)


class Delivery(Base):
    """One mentioned agent's view of one message: delivered → processing → processed|failed.

    While ``processing``, ``updated_at`` is the attempt's lease clock: set when the attempt
    opens and moved by every sign of life (``services/deliveries/leases.py``).
    """

    __tablename__ = "deliveries"
    __table_args__ = (
        UniqueConstraint("message_id", "agent_id"),
        Index("ix_deliveries_pending", "agent_id", "room_id", "status", "seq"),
        # The lease sweep's one read: open attempts by their last sign of life (issue 12).
        Index(
            "ix_deliveries_leases",
            "updated_at",
            sqlite_where=text("status = 'processing'"),
            postgresql_where=text("status = 'processing'"),
        ),
    )
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_ordered_id)
    message_id: Mapped[str] = mapped_column(ForeignKey("messages.id"))
    room_id: Mapped[str] = mapped_column(String(36))
    agent_id: Mapped[str] = mapped_column(String(36))
    seq: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12), default="delivered")
    attempt_number: Mapped[int] = mapped_column(Integer, default=0)
    delivered_at: Mapped[datetime] = mapped_column(default=utcnow)
    processed_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class DeliveryAttempt(Base):
    __tablename__ = "delivery_attempts"
    __table_args__ = (UniqueConstraint("delivery_id", "attempt_number"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_ordered_id)
    delivery_id: Mapped[str] = mapped_column(ForeignKey("deliveries.id"), index=True)
    attempt_number: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(12))  # processing | success | failed
    error: Mapped[str | None] = mapped_column(Text, default=None)
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)


class Contact(Base):
    """A one-way edge; an approved request writes one in each direction."""

    __tablename__ = "contacts"
    __table_args__ = (UniqueConstraint("owner_id", "contact_id"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    owner_type: Mapped[str] = mapped_column(String(8))
    contact_id: Mapped[str] = mapped_column(String(36))
    contact_type: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ContactRequest(Timestamps, Base):
    __tablename__ = "contact_requests"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    from_id: Mapped[str] = mapped_column(String(36), index=True)
    from_type: Mapped[str] = mapped_column(String(8))
    to_id: Mapped[str] = mapped_column(String(36), index=True)
    to_type: Mapped[str] = mapped_column(String(8))
    message: Mapped[str | None] = mapped_column(Text, default=None)
    status: Mapped[str] = mapped_column(String(12), default="pending")


class Memory(Timestamps, Base):
    __tablename__ = "memories"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    owner_type: Mapped[str] = mapped_column(String(8))
    content: Mapped[str] = mapped_column(Text)
    system: Mapped[str] = mapped_column(String(50))
    type: Mapped[str] = mapped_column(String(50))
    segment: Mapped[str] = mapped_column(String(50))
    scope: Mapped[str] = mapped_column(String(50))
    thought: Mapped[str | None] = mapped_column(Text, default=None)
    subject_id: Mapped[str | None] = mapped_column(String(200), default=None)
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    status: Mapped[str] = mapped_column(String(12), default="active")
    superseded_by: Mapped[str | None] = mapped_column(String(36), default=None)


class RoomFile(Base):
    """A file uploaded to a room; its bytes live in the file store under ``sha256``."""

    __tablename__ = "room_files"
    __table_args__ = (UniqueConstraint("room_id", "sha256"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"))
    sha256: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(255))
    content_type: Mapped[str] = mapped_column(String(127))
    size: Mapped[int] = mapped_column(Integer)
    uploader_id: Mapped[str] = mapped_column(String(36))
    uploader_type: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class RoomTask(Timestamps, Base):
    """A task on a room's board; ``number`` is its per-room handle (#1, #2, ...)."""

    __tablename__ = "tasks"
    __table_args__ = (UniqueConstraint("room_id", "number"),)
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"))
    number: Mapped[int] = mapped_column(Integer)
    subject: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[str] = mapped_column(String(12), default="active")
    overall_status: Mapped[str] = mapped_column(String(12), default="pending")
    superseded_by_id: Mapped[str | None] = mapped_column(String(36), default=None)
    created_by: Mapped[dict[str, Any]] = mapped_column(JSON)  # actor at write time
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)


class TaskAssignee(Base):
    """One participant's work on a task (joined by their first status)."""

    __tablename__ = "task_assignments"
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id"), primary_key=True)
    assignee_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    assignee: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(12), default="pending")
    active_form: Mapped[str] = mapped_column(Text, default="")
    linked_native_id: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class Audit:
    """An append-only audit row: what happened, who did it (as named then), when."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    event: Mapped[str] = mapped_column(String(20))
    actor: Mapped[dict[str, Any]] = mapped_column(JSON)
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    at: Mapped[datetime] = mapped_column(default=utcnow)


class TaskHistory(Audit, Base):
    """A row of a task's history (never updated, never deleted alone)."""

    __tablename__ = "task_events"
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id"), index=True)


class RoomBoard(Base):
    """A room's goal (one per room)."""

    __tablename__ = "boards"
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), primary_key=True)
    goal_title: Mapped[str | None] = mapped_column(Text, default=None)
    goal_summary: Mapped[str | None] = mapped_column(Text, default=None)
    created_by: Mapped[dict[str, Any]] = mapped_column(JSON)
    updated_by: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class BoardHistory(Audit, Base):
    """A row of a room goal's audit trail."""

    __tablename__ = "board_events"
    room_id: Mapped[str] = mapped_column(ForeignKey("rooms.id"), index=True)


class IdempotencyRecord(Base):
    """A stored answer for an ``Idempotency-Key``: same key and body replay it.

    ``key`` is the hash of the client's key and ``sealed_body`` the answer encrypted with a key
    derived from it (``services.idempotency.replay_seal``): neither is readable from the
    database alone.
    """

    __tablename__ = "idempotency_keys"
    principal_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    method: Mapped[str] = mapped_column(String(8))
    path: Mapped[str] = mapped_column(String(500))
    body_hash: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    sealed_body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


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


class RoomNotify(Base):
    """A person's notification level for a room (services.notify_levels); none: the default."""

    __tablename__ = "room_notify"
    user_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    room_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    level: Mapped[str] = mapped_column(String(8))


class AccountLink(Base):
    """A single-use, expiring link: an invitation to join (``invite``) or a password reset
    (``reset``). Only the SHA-256 of its token is kept (services.account_links)."""

    __tablename__ = "account_links"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))
    email: Mapped[str] = mapped_column(String(200), index=True)
    user_id: Mapped[str | None] = mapped_column(String(36), default=None)
    created_by: Mapped[str | None] = mapped_column(String(36), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    used_at: Mapped[datetime | None] = mapped_column(default=None)


class BulkDeletion(Base):
    """A background job deleting up to 100 rooms or agents of one person; survives restarts.

    ``results`` holds one ``{"id", "status", "error"?}`` per target in request order; each
    target's deletion and its result are written in one transaction, so a job resumed after a
    crash never deletes a target twice nor skips one.
    """

    __tablename__ = "bulk_deletions"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(String(36), index=True)
    resource_type: Mapped[str] = mapped_column(String(8))  # "chat" | "agent"
    force: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String(12), default="queued", index=True)
    results: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)


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


class ImportRun(Base):
    """One archive's import into this deployment (``services.imports``); one per archive id."""

    __tablename__ = "imports"
    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    archive_id: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[str] = mapped_column(String(36))
    source: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    expected: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # kind -> records
    applied: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)  # kind -> records
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)


class ImportedRow(Base):
    """The import journal: what a source id became here, written with the row it made, so
    an import resumed after a crash never makes a row twice."""

    __tablename__ = "import_map"
    import_id: Mapped[str] = mapped_column(ForeignKey("imports.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    source_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    target_id: Mapped[str] = mapped_column(String(36))
