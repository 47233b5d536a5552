"""Agent surface: /context (the agent's history) and the room's message list."""

from __future__ import annotations

import httpx
import pytest
from agent_testkit import World, make_world, person_posts, post, room_log

from band_server.context import Platform
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def event(client: httpx.AsyncClient, headers: dict[str, str], w: World, text: str) -> str:
    r = await client.post(
        w.url("/events"),
        json={"event": {"content": text, "message_type": "thought", "metadata": None}},
        headers=headers,
    )
    assert r.status_code == 201
    return str(r.json()["data"]["id"])


async def conversation(client: httpx.AsyncClient, platform: Platform, w: World) -> list[str]:
    """Six messages; Echo's context is ids[0], ids[2], ids[3], ids[5]."""
    ids = [
        await person_posts(platform, w, "hi echo", w.echo),
        await person_posts(platform, w, "hi helper", w.helper_id),
    ]
    ids.append(await event(client, w.echo_key, w, "echo thinks"))
    r = await post(client, w.echo_key, w.url(), "hello", {"id": w.alice})
    ids.append(r.json()["data"]["id"])
    ids.append(await event(client, {"X-API-Key": w.helper_key}, w, "helper thinks"))
    ids.append(await person_posts(platform, w, "both", w.echo, w.helper_id))
    return ids


async def test_context_is_own_messages_plus_text_mentioning_the_agent(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    ids = await conversation(client, platform, w)
    r = await client.get(w.url("/context"), headers=w.echo_key)
    assert r.status_code == 200
    body = r.json()
    assert [m["id"] for m in body["data"]] == [ids[0], ids[2], ids[3], ids[5]]
    assert body["metadata"] == {"has_more": False, "limit": 50, "next_cursor": None}
    first = body["data"][0]
    assert first["metadata"]["delivery_status"][w.echo]["status"] == "delivered"
    assert set(first["metadata"]["delivery_status"]) == {w.echo}
    assert body["data"][1]["message_type"] == "thought"
    assert "Deprecation" not in r.headers


async def test_context_cursor_pages_forward_to_the_end(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    ids = [await person_posts(platform, w, f"m{i}", w.echo) for i in range(5)]
    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        params: dict[str, str | int] = {"limit": 2}
        if cursor:
            params["cursor"] = cursor
        r = await client.get(w.url("/context"), params=params, headers=w.echo_key)
        assert r.status_code == 200
        meta = r.json()["metadata"]
        seen += [m["id"] for m in r.json()["data"]]
        pages += 1
        if not meta["has_more"]:
            assert meta["next_cursor"] is None
            break
        assert meta["next_cursor"]
        cursor = meta["next_cursor"]
    assert seen == ids
    assert pages == 3


async def test_context_legacy_offset_paging_is_marked_deprecated(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    ids = [await person_posts(platform, w, f"m{i}", w.echo) for i in range(3)]
    r = await client.get(w.url("/context"), params={"page": 2, "page_size": 2}, headers=w.echo_key)
    assert r.status_code == 200
    assert [m["id"] for m in r.json()["data"]] == ids[2:]
    assert r.json()["metadata"] == {
        "has_more": False,
        "limit": 2,
        "next_cursor": None,
        "page": 2,
        "page_size": 2,
        "total_count": 3,
        "total_pages": 2,
    }
    assert r.headers["Deprecation"]
    assert "2026" in r.headers["Sunset"]


@pytest.mark.parametrize(
    ("params", "pointer"),
    [
        ({"limit": 0}, "/limit"),
        ({"limit": 201}, "/limit"),
        ({"cursor": "garbage!"}, "/cursor"),
        ({"cursor": "c2VxOng"}, "/cursor"),  # "seq:x"
        ({"cursor": "c2VxOjk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5"}, "/cursor"),  # beyond 64 bits
        ({"page": 0}, "/page"),
        ({"page_size": 1000}, "/page_size"),
    ],
)
async def test_bad_paging_is_422(
    client: httpx.AsyncClient, w: World, params: dict[str, object], pointer: str
) -> None:
    for path in ("/context", "/messages"):
        r = await client.get(w.url(path), params=params, headers=w.echo_key)  # type: ignore[arg-type]
        assert r.status_code == 422, (path, params)
        assert r.json()["error"]["code"] == "validation_error"
        assert pointer in r.json()["error"]["details"]


async def test_messages_is_the_agents_queue_not_the_whole_room(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    ids = await conversation(client, platform, w)
    r = await client.get(
        w.url("/messages"), params={"sort_order": "asc", "limit": 100}, headers=w.echo_key
    )
    assert r.status_code == 200
    # only the texts that mention Echo: no events, no own messages, nothing for Helper
    assert [m["id"] for m in r.json()["data"]] == [ids[0], ids[5]]
    assert r.json()["metadata"] == {"has_more": False, "limit": 100, "next_cursor": None}
    status = r.json()["data"][1]["metadata"]["delivery_status"]
    assert set(status) == {w.echo}

    r = await client.get(w.url("/messages"), params={"sort_order": "desc"}, headers=w.echo_key)
    assert [m["id"] for m in r.json()["data"]] == [ids[5], ids[0]]
    assert r.json()["metadata"]["limit"] == 20


async def test_messages_filters_by_delivery_status(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    done, working, failed, fresh = [
        await person_posts(platform, w, f"m{i}", w.echo) for i in range(4)
    ]
    base = w.url("/messages")
    for msg in (done, working, failed):
        await client.post(f"{base}/{msg}/processing", headers=w.echo_key)
    await client.post(f"{base}/{done}/processed", headers=w.echo_key)
    await client.post(f"{base}/{failed}/failed", json={"error": "x"}, headers=w.echo_key)

    async def ids(status: str | None) -> list[str]:
        params = {"status": status} if status else {}
        r = await client.get(base, params=params, headers=w.echo_key)
        assert r.status_code == 200
        return [m["id"] for m in r.json()["data"]]

    assert await ids(None) == [working, failed, fresh]
    assert await ids("pending") == [failed, fresh]
    assert await ids("processing") == [working]
    assert await ids("processed") == [done]
    assert await ids("failed") == [failed]
    assert await ids("all") == [done, working, failed, fresh]
    r = await client.get(base, params={"status": "stuck"}, headers=w.echo_key)
    assert r.status_code == 422
    assert "/status" in r.json()["error"]["details"]


async def test_messages_legacy_paging_reports_total_pages(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msgs = [await person_posts(platform, w, f"m{i}", w.echo) for i in range(3)]
    for msg in msgs:
        await client.post(w.url(f"/messages/{msg}/processing"), headers=w.echo_key)
    r = await client.get(
        w.url("/messages"), params={"status": "processing", "page": 1}, headers=w.echo_key
    )
    assert [m["id"] for m in r.json()["data"]] == msgs
    assert r.json()["metadata"]["total_pages"] == 1
    assert r.headers["Deprecation"]


async def test_messages_keyset_paging_both_directions(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    ids = [await person_posts(platform, w, f"m{i}", w.echo) for i in range(5)]
    for order, expected in (("asc", ids), ("desc", ids[::-1])):
        seen: list[str] = []
        cursor: str | None = None
        while True:
            params: dict[str, str | int] = {"limit": 2, "sort_order": order}
            if cursor:
                params["cursor"] = cursor
            r = await client.get(w.url("/messages"), params=params, headers=w.echo_key)
            meta = r.json()["metadata"]
            seen += [m["id"] for m in r.json()["data"]]
            if not meta["has_more"]:
                break
            assert meta["next_cursor"] is not None
            cursor = meta["next_cursor"]
        assert seen == expected


async def test_room_log_service_lists_every_message_and_event(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """``messages.list_messages`` (the human surface's listing) covers the whole room."""
    ids = await conversation(client, platform, w)
    log = await room_log(platform, w.room_id, sort_order="asc", limit=100)
    assert [m.id for m in log.items] == ids
    assert log.metadata == {"has_more": False, "limit": 100, "next_cursor": None}
    assert set(log.items[5].metadata["delivery_status"]) == {w.echo, w.helper_id}
    first = await room_log(platform, w.room_id, sort_order="desc", limit=4)
    assert [m.id for m in first.items] == ids[::-1][:4]
    rest = await room_log(
        platform, w.room_id, sort_order="desc", limit=4, cursor=first.metadata["next_cursor"]
    )
    assert [m.id for m in rest.items] == ids[::-1][4:]
    assert rest.metadata["has_more"] is False


async def test_messages_bad_sort_order_is_422(client: httpx.AsyncClient, w: World) -> None:
    r = await client.get(w.url("/messages"), params={"sort_order": "up"}, headers=w.echo_key)
    assert r.status_code == 422
    assert "/sort_order" in r.json()["error"]["details"]


async def test_history_of_a_foreign_room_is_404(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    await person_posts(platform, w, "secret", w.helper_id)
    await client.delete(w.url(f"/participants/{w.echo}"), headers=w.echo_key)
    for path in ("/context", "/messages", "/participants"):
        r = await client.get(w.url(path), headers=w.echo_key)
        assert r.status_code == 404, path
        assert "data" not in r.json()
