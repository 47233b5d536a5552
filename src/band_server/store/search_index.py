"""SQLite's message search index, written by the group committer in passes, not per row.

How it works: docs/internals/server.md, "The SQLite search index".

A search runs ``Database.search_ready`` first, so it finds every acknowledged message.
"""

from __future__ import annotations

import sqlite3

__all__ = ["ANY_PENDING", "INDEXED_UP_TO", "PENDING", "any_pending", "index_pending"]

INDEXED_UP_TO = "(SELECT coalesce(max(id), 0) FROM message_search_docsize)"
"""The highest rowid the index holds (SQL): every text message at or below it is indexed."""
PENDING = (  # one constant statement: INDEXED_UP_TO written out
    "INSERT INTO message_search(rowid, content) SELECT rowid, content FROM messages"
    " WHERE rowid > (SELECT coalesce(max(id), 0) FROM message_search_docsize)"
    " AND message_type = 'text' ORDER BY rowid"
)

ANY_PENDING = (
    "SELECT EXISTS (SELECT 1 FROM messages"
    " WHERE rowid > (SELECT coalesce(max(id), 0) FROM message_search_docsize)"
    " AND message_type = 'text')"
)
"""Whether any text message waits for the index (reads only the rows above the bound)."""


def any_pending(sqlite: sqlite3.Connection) -> bool:
    """Whether a search would miss a committed text message now (a reader's connection)."""
    try:
        return bool(sqlite.execute(ANY_PENDING).fetchone()[0])
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        return False


def index_pending(sqlite: sqlite3.Connection) -> None:
    """Index the text messages the search index lacks, in the open transaction.

    A database whose schema predates the index (migration 0013) has nothing to index.
    """
    try:
        sqlite.execute(PENDING)
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
