"""Full-text search over the text messages a person can read (the rooms they are in now).

How it works: docs/internals/server.md, "Message search".

The same query finds the same messages on SQLite (FTS5) and PostgreSQL (GIN).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field
from sqlalchemy import DateTime, Integer, String, bindparam, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import ChatMessage
from band_server.errors import ValidationFailed
from band_server.services import keyset
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
    "SELECT m.id AS id, m.created_at AS created_at, m.seq AS seq, r.title AS title,"
    " snippet(message_search, 0, '\ue000', '\ue001', '…', 24) AS snippet"
    " FROM message_search JOIN messages m ON m.rowid = message_search.rowid"
    " JOIN participants p ON p.room_id = m.room_id AND p.participant_id = :me"
    " AND p.status = 'active'"
    " JOIN rooms r ON r.id = m.room_id AND r.deleted_at IS NULL"
    " WHERE message_search MATCH :q AND m.message_type = 'text'{after}"
    " ORDER BY {order} LIMIT :limit OFFSET :skip"
)
_SQLITE_ORDER = {
    "newest": "m.created_at DESC, m.seq DESC, m.id DESC",
    "best": "bm25(message_search), m.created_at DESC, m.id DESC",
}
_PG = (
    "SELECT m.id AS id, m.created_at AS created_at, m.seq AS seq, r.title AS title,"
    " ts_headline('simple'::regconfig, m.content, q.query,"
    " 'StartSel=\ue000, StopSel=\ue001, MaxWords=24, MinWords=12, MaxFragments=2,"
    ' FragmentDelimiter=" … "\') AS snippet'
    " FROM messages m CROSS JOIN (SELECT to_tsquery('simple'::regconfig, :q) AS query) q"
    " JOIN participants p ON p.room_id = m.room_id AND p.participant_id = :me"
    " AND p.status = 'active'"
    " JOIN rooms r ON r.id = m.room_id AND r.deleted_at IS NULL"
    " WHERE m.message_type = 'text'"
    " AND to_tsvector('simple'::regconfig, m.content) @@ q.query{after}"
    " ORDER BY {order} LIMIT :limit OFFSET :skip"
)
_PG_ORDER = {
    "newest": "m.created_at DESC, m.seq DESC, m.id DESC",
    "best": "ts_rank(to_tsvector('simple'::regconfig, m.content), q.query) DESC,"
    " m.created_at DESC, m.id DESC",
}
# Newest first, after the cursor's hit: older, or as old with a lower seq, or the same both
# (two rooms) with a lower id.
_AFTER = (
    " AND (m.created_at < :at OR (m.created_at = :at AND (m.seq < :seq"
    " OR (m.seq = :seq AND m.id < :id))))"
)
_CURSOR_ORDER = "search"


def _match(dialect: str, words: list[str]) -> str:
    """The database's query for "every word, as a prefix" (words are letters and digits)."""
    if dialect == "postgresql":
        return " & ".join(f"{w}:*" for w in words)
    return " AND ".join(f'"{w}"*' for w in words)


@dataclass(frozen=True)
class SearchPage:
    """One page of hits and the cursor of the next (None on the last page)."""

    hits: list[SearchHit]
    next_cursor: str | None


def _statement(dialect: str, sort: SearchSort, keyed: bool) -> Any:
    template, orders = (_PG, _PG_ORDER) if dialect == "postgresql" else (_SQLITE, _SQLITE_ORDER)
    sql = template.replace("{order}", orders[sort]).replace("{after}", _AFTER if keyed else "")
    statement = text(sql).columns(created_at=DateTime(timezone=True), seq=Integer, id=String)
    if keyed:
        statement = statement.bindparams(bindparam("at", type_=DateTime(timezone=True)))
    return statement


def _position(sort: SearchSort, cursor: str | None) -> tuple[dict[str, Any], int]:
    """The cursor's keyset bounds (newest first) or offset (best first), or 422."""
    if cursor is None:
        return {}, 0
    key, row_id = keyset.decode(cursor, sort, _CURSOR_ORDER)
    try:
        if sort == "best":
            skip = int(key)
            if skip < 0:
                raise ValueError(key)
            return {}, skip
        at, seq = key
        return {"at": datetime.fromisoformat(at), "seq": int(seq), "id": row_id}, 0
    except (TypeError, ValueError):
        raise ValidationFailed("cursor is invalid", {"/cursor": ["is invalid"]}) from None


async def search_messages(
    session: AsyncSession,
    me: Principal,
    query: str,
    *,
    sort: SearchSort = "newest",
    limit: int = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> SearchPage:
    """The text messages of the person's rooms that contain every word of ``query``: the
    page after ``cursor`` (from the first when None)."""
    words = words_of(query)
    bounds, skip = _position(sort, cursor)
    dialect = session.get_bind().dialect.name
    statement = _statement(dialect, sort, bool(bounds))
    params: dict[str, Any] = {
        "me": me.id, "q": _match(dialect, words), "limit": limit + 1, "skip": skip, **bounds
    }  # fmt: skip
    found = (await session.execute(statement, params)).all()
    more = len(found) > limit
    found = found[:limit]
    if not found:
        return SearchPage([], None)
    next_cursor = None
    if more:
        last = found[-1]
        key: Any = skip + limit if sort == "best" else [last.created_at.isoformat(), last.seq]
        next_cursor = keyset.encode(sort, _CURSOR_ORDER, key, last.id)
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
    return SearchPage(hits, next_cursor)
