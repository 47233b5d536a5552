"""``GET /api/v1/me/search`` on both databases (SQLite's FTS5, PostgreSQL's full-text index):
the same messages found for the same words, newest or best first, the matches marked, and
never a message of a room the person is not in (never was, or left)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.services.rooms import membership as rooms

from .real_services import PostgresServer


@dataclass
class World:
    client: httpx.AsyncClient
    platform: Platform
    keys: dict[str, dict[str, str]]  # handle -> headers
    ids: dict[str, str]  # handle -> id


@pytest.fixture(params=["sqlite", "postgresql"])
async def world(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_server: PostgresServer
) -> AsyncIterator[World]:
    url = await postgres_server.create_database() if request.param == "postgresql" else None
    app = create_app(Settings(data_dir=tmp_path / "data", database_url=url, redis_url=None))
    async with app.router.lifespan_context(app):
        platform: Platform = app.state.platform
        assert platform.db.engine.dialect.name == request.param
        keys, ids = {}, {}
        async with platform.db.write() as session:
            for handle in ("alice", "bob", "carol"):
                user, key = await accounts.create_user(session, name=handle.title(), handle=handle)
                keys[handle], ids[handle] = {"X-API-Key": key}, user.id
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
            yield World(c, platform, keys, ids)


async def room(world: World, owner: str, title: str, *members: str) -> str:
    async with world.platform.db.write() as session:
        person = accounts.user_principal(await accounts.get_user(session, world.ids[owner]))
        made, _ = await rooms.create_room(session, person, title=title, task_id=None)
        for member in members:
            await rooms.add_participant(session, person, made, world.ids[member])
        return made.id


async def say(world: World, who: str, room_id: str, content: str) -> str:
    sent = await world.client.post(
        f"/api/v1/me/chats/{room_id}/messages",
        headers=world.keys[who],
        json={"message": {"content": content}},
    )
    assert sent.status_code == 201, sent.text
    return str(sent.json()["data"]["id"])


async def search(world: World, who: str, q: str, **params: str) -> list[dict[str, object]]:
    found = await world.client.get(
        "/api/v1/me/search", params={"q": q, **params}, headers=world.keys[who]
    )
    assert found.status_code == 200, found.text
    hits: list[dict[str, object]] = found.json()["data"]
    return hits


def contents(hits: list[dict[str, object]]) -> list[str]:
    return [str(h["message"]["content"]) for h in hits]  # type: ignore[index]


async def test_search_finds_only_the_persons_rooms_on_both_databases(world: World) -> None:
    plans = await room(world, "alice", "Launch plans", "bob")
    secret = await room(world, "carol", "Carol's secret")
    left = await room(world, "bob", "Bob's old room", "alice")
    await say(world, "alice", plans, "The rocket launch is on Friday, weather permitting.")
    await say(world, "bob", plans, "Launch checklist: fuel, crew, launch pad, weather.")
    await say(world, "carol", secret, "The launch codes are in the blue folder.")
    await say(world, "bob", left, "An old launch note nobody should find after leaving.")
    await say(world, "alice", plans, "Lunch at noon?")

    # Newest first; both of alice's rooms; carol's never.
    newest = await search(world, "alice", "launch")
    assert contents(newest) == [
        "An old launch note nobody should find after leaving.",
        "Launch checklist: fuel, crew, launch pad, weather.",
        "The rocket launch is on Friday, weather permitting.",
    ]
    assert {h["chat_title"] for h in newest} == {"Launch plans", "Bob's old room"}
    for hit in newest:  # every marked span is the word that was asked for
        snippet = str(hit["snippet"])
        spans = hit["highlights"]
        assert isinstance(spans, list) and spans
        assert all(snippet[s:e].lower() == "launch" for s, e in spans), (snippet, spans)

    # Every word must match, each as a prefix; case and punctuation do not matter.
    assert contents(await search(world, "alice", "LAUN fri")) == [
        "The rocket launch is on Friday, weather permitting."
    ]
    assert contents(await search(world, "alice", "weather, crew!")) == [
        "Launch checklist: fuel, crew, launch pad, weather."
    ]
    # Best first: the message that says "launch" twice in fewer words ranks first.
    best = await search(world, "alice", "launch", sort="best")
    assert contents(best)[0] == "Launch checklist: fuel, crew, launch pad, weather."
    assert len(best) == 3

    # After alice leaves bob's room, its messages are gone from her results.
    async with world.platform.db.write() as session:
        alice = accounts.user_principal(await accounts.get_user(session, world.ids["alice"]))
        old = await rooms.get_room(session, left)
        await rooms.remove_participant(session, alice, old, world.ids["alice"])
    assert "Bob's old room" not in {h["chat_title"] for h in await search(world, "alice", "launch")}
    assert contents(await search(world, "carol", "launch")) == [
        "The launch codes are in the blue folder."
    ]
    # Query syntax of either database is only words here.
    for q in ('launch" OR "codes', "codes*", "launch NOT crew", "x') OR 1=1 --", "codes:*"):
        for hit in await search(world, "alice", q):
            assert hit["chat_id"] != secret


async def page_through(world: World, who: str, q: str, sort: str, limit: int) -> list[str]:
    """Every hit, a page of ``limit`` at a time, following ``next_cursor`` to the end."""
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params = {
            "q": q,
            "sort": sort,
            "limit": str(limit),
            **({"cursor": cursor} if cursor else {}),
        }
        got = await world.client.get("/api/v1/me/search", params=params, headers=world.keys[who])
        assert got.status_code == 200, got.text
        body = got.json()
        assert len(body["data"]) <= limit
        seen += [str(h["message"]["id"]) for h in body["data"]]
        cursor = body["metadata"]["next_cursor"]
        assert body["metadata"]["has_more"] is (cursor is not None)
        if cursor is None:
            return seen


async def test_search_pages_follow_the_cursor_in_a_stable_order(world: World) -> None:
    """25 hits in two rooms, pages of 4: every hit once, in the order one big page gives;
    a hit posted while paging does not shift the pages (newest first is keyset-paged)."""
    plans = await room(world, "alice", "Launch plans", "bob")
    other = await room(world, "bob", "Pad crew", "alice")
    for n in range(25):
        await say(world, "bob" if n % 2 else "alice", plans if n % 3 else other, f"launch {n}")
    for sort in ("newest", "best"):
        whole = [
            str(h["message"]["id"])
            for h in await search(world, "alice", "launch", sort=sort, limit="50")
        ]
        assert len(whole) == 25
        assert await page_through(world, "alice", "launch", sort, 4) == whole, sort

    first = (
        await world.client.get(
            "/api/v1/me/search", params={"q": "launch", "limit": "10"}, headers=world.keys["alice"]
        )
    ).json()
    assert [h["message"]["content"] for h in first["data"]][:2] == ["launch 24", "launch 23"]
    await say(world, "alice", plans, "launch 25, a late one")
    rest = await world.client.get(
        "/api/v1/me/search",
        params={"q": "launch", "limit": "50", "cursor": first["metadata"]["next_cursor"]},
        headers=world.keys["alice"],
    )
    assert [h["message"]["content"] for h in rest.json()["data"]] == [
        f"launch {n}" for n in range(14, -1, -1)
    ]
    assert rest.json()["metadata"] == {
        "count": 15, "sort": "newest", "limit": 50, "has_more": False, "next_cursor": None
    }  # fmt: skip

    # A cursor of another order, or not ours, is a 422 at /cursor.
    for cursor, sort in ((first["metadata"]["next_cursor"], "best"), ("bm90IG91cnM", "newest")):
        refused = await world.client.get(
            "/api/v1/me/search",
            params={"q": "launch", "sort": sort, "cursor": cursor},
            headers=world.keys["alice"],
        )
        assert refused.status_code == 422, refused.text
        assert "/cursor" in str(refused.json()["error"])


async def test_a_query_without_words_is_refused_in_words(world: World) -> None:
    for q, pointer in (("?!", "/q"), ("x" * 201, "/q")):
        refused = await world.client.get(
            "/api/v1/me/search", params={"q": q}, headers=world.keys["alice"]
        )
        assert refused.status_code == 422, refused.text
        assert refused.json()["error"]["code"] == "validation_error"
        assert pointer in str(refused.json()["error"])
    bad_sort = await world.client.get(
        "/api/v1/me/search", params={"q": "x", "sort": "oldest"}, headers=world.keys["alice"]
    )
    assert bad_sort.status_code == 422
