"""A room's messages and the mentions each one makes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String, Text, UniqueConstraint, text
from sqlalchemy.orm import Mapped, mapped_column

from .base import Base, Timestamps, new_ordered_id


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
        # A room's texts by sequence (migration 0017): its newest text and a person's unread
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
        # Full-text search on PostgreSQL (messages.search; SQLite has its FTS5 table, made by
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
