"""Search: the box in the sidebar opens a page of the messages found across the person's
rooms, each snippet with its matches marked, each a link to the room at that message."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ValidationFailed
from ..services.identity.web_sessions import SignedIn
from ..services.messages import search
from .render import page
from .respond import platform_of, view

router = APIRouter()
PAGE = search.DEFAULT_LIMIT
_TOKEN = re.compile(r"@\[\[([0-9A-Za-z-]{1,64})\]\]")


@dataclass(frozen=True)
class Found:
    """A hit as the page shows it: the room, who wrote it and when, the snippet's pieces
    (text, matched?) and where the room opens."""

    room_title: str
    sender: str
    inserted_at: str
    pieces: list[tuple[str, bool]]
    url: str


def _names(hit: search.SearchHit) -> dict[str, str]:
    mentions: Any = hit.message.metadata.get("mentions") or []
    return {
        str(m["id"]): str(m.get("name") or m.get("handle") or "someone")
        for m in mentions
        if isinstance(m, dict) and m.get("id")
    }


def found(hit: search.SearchHit) -> Found:
    """The page's view of a hit: mention tokens read as @Name, matches as marked pieces."""
    names = _names(hit)
    pieces: list[tuple[str, bool]] = []
    at = 0
    for start, end in [*hit.highlights, (len(hit.snippet), len(hit.snippet))]:
        pieces.append((hit.snippet[at:start], False))
        pieces.append((hit.snippet[start:end], True))
        at = end
    readable = [
        (_TOKEN.sub(lambda m: "@" + names.get(m[1], "someone"), text), marked)
        for text, marked in pieces
        if text
    ]
    message = hit.message
    return Found(
        room_title=hit.chat_title or f"Room {hit.chat_id[:8]}",
        sender=message.sender_name or "Someone",
        inserted_at=message.inserted_at,
        pieces=readable,
        url=f"/rooms/{hit.chat_id}?at={message.seq}#message-{message.id}",
    )


@router.get("/search")
async def search_page(request: Request) -> Response:
    """Messages of the person's rooms with every word of ``q``; ``sort`` newest or best; a
    page at a time, ``cursor`` naming where the page starts (the "Next page" link's)."""

    async def run(me: SignedIn) -> Response:
        q = request.query_params.get("q", "").strip()
        sort: search.SearchSort = "best" if request.query_params.get("sort") == "best" else "newest"
        cursor = request.query_params.get("cursor") or None
        hits: list[Found] = []
        problem = ""
        next_url = ""
        if q:
            try:
                db = platform_of(request).db
                await db.search_ready()
                async with db.read() as session:
                    got = await search.search_messages(
                        session, me.person, q, sort=sort, limit=PAGE, cursor=cursor
                    )
                hits = [found(h) for h in got.hits]
                if got.next_cursor:
                    query = urlencode({"q": q, "sort": sort, "cursor": got.next_cursor})
                    next_url = f"/search?{query}"
            except ValidationFailed as exc:
                problem = exc.message
        return page(
            "search.html",
            me,
            section="search",
            q=q,
            sort=sort,
            hits=hits,
            problem=problem,
            next_url=next_url,
            later_page=cursor is not None,
            first_url=f"/search?{urlencode({'q': q, 'sort': sort})}",
        )

    return await view(request, run)
