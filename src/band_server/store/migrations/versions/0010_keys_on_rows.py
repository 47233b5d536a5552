"""keys on rows: a keyed speech post's Idempotency-Key rides on its own message

How it works: docs/internals/server.md, "Migration 0010: keys on rows".
"""

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from alembic import op

from band_server.store.migration_ops import partial_index

revision = "0010"
down_revision = "0009"

def upgrade() -> None:
    op.add_column("messages", sa.Column("idem_key", sa.String(64), nullable=True))
    op.add_column("messages", sa.Column("idem_body", sa.String(64), nullable=True))
    keyed = "idem_key IS NOT NULL"
    partial_index("ix_messages_idem_key", "messages", ["idem_key"], keyed, unique=True)


def _answer(message_id: str, message_type: str, meta: Any) -> str:
    """The answer the post gave (``services.row_keys.answer``), frozen here as it is today."""
    if isinstance(meta, str):
        meta = json.loads(meta)
    if message_type == "text":
        mentions = (meta or {}).get("mentions") or []
        recipients = [
            {"id": m["id"], "handle": m["handle"], "name": m.get("name")}
            for m in mentions
            if m.get("kind") != "reference"
        ]
        data: dict[str, Any] = {"id": message_id, "success": True, "recipients": recipients}
    else:
        data = {"id": message_id, "message_type": message_type, "success": True}
    return json.dumps({"data": data}, ensure_ascii=False, separators=(",", ":"))


def downgrade() -> None:
    bind = op.get_bind()
    since = datetime.now(UTC) - timedelta(hours=24)
    if bind.dialect.name == "sqlite":  # stored naive, in UTC
        since = since.replace(tzinfo=None)
    rows = bind.execute(
        sa.text(
            "SELECT id, room_id, sender_id, sender_type, message_type, metadata, idem_key,"
            " idem_body, created_at FROM messages WHERE idem_key IS NOT NULL"
            " AND created_at > :since"
        ),
        {"since": since},
    ).all()
    insert = sa.text(
        "INSERT INTO idempotency_keys (principal_id, key, method, path, body_hash,"
        " status_code, sealed_body, created_at) VALUES (:principal, :key, 'POST', :path,"
        " :body_hash, 201, :sealed, :created_at)"
    )
    for mid, room, sender, sender_type, mtype, meta, key, body_hash, created in rows:
        surface = "me" if sender_type == "User" else "agent"
        last = "messages" if mtype == "text" else "events"
        params = {
            "principal": sender,
            "key": key,
            "path": f"/api/v1/{surface}/chats/{room}/{last}",
            "body_hash": body_hash,
            "sealed": "p1." + _answer(mid, mtype, meta),
            "created_at": created,
        }
        bind.execute(insert, params)
    op.drop_index("ix_messages_idem_key", table_name="messages")
    for column in ("idem_body", "idem_key"):
        if bind.dialect.name == "sqlite":  # in place (SQLite 3.35+), not a copy of the table
            op.execute(f"ALTER TABLE messages DROP COLUMN {column}")
        else:
            op.drop_column("messages", column)
