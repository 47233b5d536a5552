"""message search: full-text indexes over the text messages people read

SQLite: an FTS5 table over ``messages.content`` (external content, keyed by the message's
rowid; messages are never vacuumed or deleted, so the rowid is stable), kept by triggers for
text messages only, filled once from the messages already there. PostgreSQL: a GIN index on
``to_tsvector('simple', content)`` for text messages (``services.messages.search`` queries that very
expression). Both split words the same way and fold case, with no stemming, so a query finds
the same messages on either database.
"""

from alembic import op

revision = "0013"
down_revision = "0012"

_TEXT = "message_type = 'text'"
_SQLITE_UP = [
    "CREATE VIRTUAL TABLE message_search USING fts5(content, content='messages',"
    " content_rowid='rowid', tokenize='unicode61 remove_diacritics 2')",
    "INSERT INTO message_search(rowid, content) SELECT rowid, content FROM messages"
    " WHERE message_type = 'text'",
    "CREATE TRIGGER message_search_insert AFTER INSERT ON messages"
    " WHEN new.message_type = 'text' BEGIN"
    " INSERT INTO message_search(rowid, content) VALUES (new.rowid, new.content); END",
    "CREATE TRIGGER message_search_delete AFTER DELETE ON messages"
    " WHEN old.message_type = 'text' BEGIN"
    " INSERT INTO message_search(message_search, rowid, content)"
    " VALUES ('delete', old.rowid, old.content); END",
    "CREATE TRIGGER message_search_update AFTER UPDATE OF content ON messages"
    " WHEN old.message_type = 'text' BEGIN"
    " INSERT INTO message_search(message_search, rowid, content)"
    " VALUES ('delete', old.rowid, old.content);"
    " INSERT INTO message_search(rowid, content) VALUES (new.rowid, new.content); END",
]
_SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS message_search_update",
    "DROP TRIGGER IF EXISTS message_search_delete",
    "DROP TRIGGER IF EXISTS message_search_insert",
    "DROP TABLE IF EXISTS message_search",
]
_PG_UP = [
    "CREATE INDEX ix_messages_search ON messages"
    f" USING gin (to_tsvector('simple'::regconfig, content)) WHERE {_TEXT}",
]
_PG_DOWN = ["DROP INDEX IF EXISTS ix_messages_search"]


def _run(sqlite: list[str], postgresql: list[str]) -> None:
    dialect = op.get_bind().dialect.name
    for statement in {"sqlite": sqlite, "postgresql": postgresql}.get(dialect, []):
        op.execute(statement)


def upgrade() -> None:
    _run(_SQLITE_UP, _PG_UP)


def downgrade() -> None:
    _run(_SQLITE_DOWN, _PG_DOWN)
