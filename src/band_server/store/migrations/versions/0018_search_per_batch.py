"""message search per batch: the index is written at each group commit, not by a trigger

SQLite only (PostgreSQL's GIN index is unchanged). The insert trigger of 0013 cost more than
the message's insert itself inside a unit's savepoint; ``store.search_index`` now indexes a
batch's text messages just before its ``COMMIT``. The delete and update triggers act only on
messages already indexed (rowid at most the highest indexed): one not indexed yet is indexed
as it stands at the commit. Downgrading indexes what is pending and restores 0013's triggers.
"""

from alembic import op

revision = "0018"
down_revision = "0017"

# As store.search_index has them, written out: a migration stays as it ran.
_INDEXED_UP_TO = "(SELECT coalesce(max(id), 0) FROM message_search_docsize)"
_PENDING = (
    "INSERT INTO message_search(rowid, content) SELECT rowid, content FROM messages"
    " WHERE rowid > (SELECT coalesce(max(id), 0) FROM message_search_docsize)"
    " AND message_type = 'text' ORDER BY rowid"
)
_INDEXED = f"old.message_type = 'text' AND old.rowid <= {_INDEXED_UP_TO}"
_DELETE_OLD = (
    "INSERT INTO message_search(message_search, rowid, content)"
    " VALUES ('delete', old.rowid, old.content);"
)
_NEW = "INSERT INTO message_search(rowid, content) VALUES (new.rowid, new.content);"
_DROP = [
    "DROP TRIGGER IF EXISTS message_search_insert",
    "DROP TRIGGER IF EXISTS message_search_delete",
    "DROP TRIGGER IF EXISTS message_search_update",
]
_UP = [
    _PENDING,
    *_DROP,
    f"CREATE TRIGGER message_search_delete AFTER DELETE ON messages WHEN {_INDEXED}"
    f" BEGIN {_DELETE_OLD} END",
    f"CREATE TRIGGER message_search_update AFTER UPDATE OF content ON messages WHEN {_INDEXED}"
    f" BEGIN {_DELETE_OLD} {_NEW} END",
]
_DOWN = [
    _PENDING,
    *_DROP,
    "CREATE TRIGGER message_search_insert AFTER INSERT ON messages"
    f" WHEN new.message_type = 'text' BEGIN {_NEW} END",
    "CREATE TRIGGER message_search_delete AFTER DELETE ON messages"
    f" WHEN old.message_type = 'text' BEGIN {_DELETE_OLD} END",
    "CREATE TRIGGER message_search_update AFTER UPDATE OF content ON messages"
    f" WHEN old.message_type = 'text' BEGIN {_DELETE_OLD} {_NEW} END",
]


def _run(statements: list[str]) -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in statements:
            op.execute(statement)


def upgrade() -> None:
    _run(_UP)


def downgrade() -> None:
    _run(_DOWN)
