"""SQLite's message search index, written by the group committer in passes, not per row.

Migration 0018 dropped the trigger that indexed each text message as it was inserted: inside a
unit's savepoint that cost more than the message's own insert. Instead, the writer indexes, in
a batch's transaction and just before its ``COMMIT`` (:func:`index_pending`), every text
message the index lacks: those with a rowid above the highest one indexed. FTS5 keeps one row
per indexed document in its ``message_search_docsize`` table, keyed by the document's rowid,
so that bound is one lookup and always agrees with the index itself (another process's group
committer included). FTS5 writes a segment in each transaction it indexes in, so the writer
does this once a second (``group_batch.INDEX_EVERY``), and a search first asks for a pass when
any text is pending (:data:`ANY_PENDING`, ``Database.search_ready``): search finds every
acknowledged message. A batch that rolls back takes nothing with it. A message written outside
a group committer (raw SQL on the file) is indexed by the next pass.

Rows past that bound are the ones not indexed yet: the delete and update triggers of
migration 0018 leave them alone (a message posted and changed in the same batch is indexed
once, as it stands at the commit).
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
