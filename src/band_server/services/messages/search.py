"""Full-text search over the text messages a person can read (the rooms they are in now).

SQLite answers from the FTS5 table ``message_search``, PostgreSQL from the GIN index on
``to_tsvector('simple', content)`` (migration 0013). A query is cut into words (letters and
digits; everything else separates, as both databases' tokenisers do) and every word must
match, as a prefix, so what a person types finds the same messages on either database; no
query syntax of either database ever reaches it. Hits come newest first or best first (BM25
on SQLite, ``ts_rank`` on PostgreSQL), each with a snippet and the matched spans in it.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import ChatMessage
from band_server.errors import ValidationFailed
from band_server.services.identity.principals import Principal
from band_server.services.views import message_view
from band_server.store.models import Message

SearchSort = Literal["newest", "best"]
MAX_QUERY_CHARS = 200
MAX_WORDS = 12
MAX_LIMIT = 50
DEFAULT_LIMIT = 20
_WORD = re.compile(r"[^\W_]+")
# Snippet markers from the private-use area: they never reach a client (hits carry offsets).
_OPEN, _CLOSE = "\ue000", "\ue001"


class SearchHit(BaseModel):
    """One message found: the message, its room, and a snippet with the matched spans."""

    message: ChatMessage
    chat_id: str
    chat_title: str | None = None
    snippet: str = Field(description="A short passage of the message around the matches")
    highlights: list[tuple[int, int]] = Field(
        description="[start, end) character offsets of the matched words in the snippet"
    )


def words_of(query: str) -> list[str]:
    """The words of what the person typed (lower case), or a 422 when there are none."""
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationFailed(
            f"q must be at most {MAX_QUERY_CHARS} characters", {"/q": ["is too long"]}
        )
    words = [w.lower() for w in _WORD.findall(query)][:MAX_WORDS]
    if not words:
        raise ValidationFailed("q must contain a word to search for", {"/q": ["has no words"]})
    return words


def split_snippet(marked: str) -> tuple[str, list[tuple[int, int]]]:
    """The snippet without its markers, and the [start, end) spans they enclosed."""
    plain: list[str] = []
    spans: list[tuple[int, int]] = []
    at = 0
    start: int | None = None
    for char in marked:
        if char == _OPEN:
            start = at
        elif char == _CLOSE and start is not None:
            if at > start:
                spans.append((start, at))
            start = None
        else:
            plain.append(char)
            at += 1
    return "".join(plain), spans


# Each statement is one literal (what the person typed is only ever the bound :q); the
# order is one of the two below. \ue000 and \ue001 are _OPEN and _CLOSE.
_SQLITE = (
    "SELECT m.id AS id, r.title AS title,"
    " snippet(message_search, 0, '\ue000', '\ue001', '…', 24) AS snippet"
    " FROM message_search JOIN messages m ON m.rowid = message_search.rowid"
    " JOIN participants p ON p.room_id = m.room_id AND p.participant_id = :me"
    " AND p.status = 'active'"
    " JOIN rooms r ON r.id = m.room_id AND r.deleted_at IS NULL"
    " WHERE message_search MATCH :q AND m.message_type = 'text'"
    " ORDER BY {order} LIMIT :limit"
)
_SQLITE_ORDER = {"newest": "m.created_at DESC, m.seq DESC", "best": "bm25(message_search), m.seq"}
_PG = (
    "SELECT m.id AS id, r.title AS title,"
    " ts_headline('simple'::regconfig, m.content, q.query,"
    " 'StartSel=\ue000, StopSel=\ue001, MaxWords=24, MinWords=12, MaxFragments=2,"
    ' FragmentDelimiter=" … "\') AS snippet'
    " FROM messages m CROSS JOIN (SELECT to_tsquery('simple'::regconfig, :q) AS query) q"
    " JOIN participants p ON p.room_id = m.room_id AND p.participant_id = :me"
    " AND p.status = 'active'"
    " JOIN rooms r ON r.id = m.room_id AND r.deleted_at IS NULL"
    " WHERE m.message_type = 'text'"
    " AND to_tsvector('simple'::regconfig, m.content) @@ q.query"
    " ORDER BY {order} LIMIT :limit"
)
_PG_ORDER = {
    "newest": "m.created_at DESC, m.seq DESC",
    "best": "ts_rank(to_tsvector('simple'::regconfig, m.content), q.query) DESC, m.created_at DESC",
}


def _match(dialect: str, words: list[str]) -> str:
    """The database's query for "every word, as a prefix" (words are letters and digits)."""
    if dialect == "postgresql":
        return " & ".join(f"{w}:*" for w in words)
    return " AND ".join(f'"{w}"*' for w in words)


async def search_messages(
    session: AsyncSession,
    me: Principal,
    query: str,
    *,
    sort: SearchSort = "newest",
    limit: int = DEFAULT_LIMIT,
) -> list[SearchHit]:
    """The text messages of the person's rooms that contain every word of ``query``."""
    words = words_of(query)
    dialect = session.get_bind().dialect.name
    template, orders = (_PG, _PG_ORDER) if dialect == "postgresql" else (_SQLITE, _SQLITE_ORDER)
    statement = text(template.replace("{order}", orders[sort]))
    params: dict[str, Any] = {"me": me.id, "q": _match(dialect, words), "limit": limit}
    found = (await session.execute(statement, params)).all()
    if not found:
        return []
    ids = [r.id for r in found]
    rows = {m.id: m for m in await session.scalars(select(Message).where(Message.id.in_(ids)))}
    hits = []
    for row in found:
        plain, spans = split_snippet(row.snippet or "")
        msg = rows[row.id]
        hits.append(
            SearchHit(
                message=message_view(msg),
                chat_id=msg.room_id,
                chat_title=row.title,
                snippet=plain,
                highlights=spans,
            )
        )
    return hits
