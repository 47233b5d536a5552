"""The read options of band-client-rest 0.0.51 on rooms and timelines, as a client sees them:
room list includes, filters, sort and cursor walks; message counts; type filters, ``since``
and the anchored reads ``after``/``before``/``around``; and the 422s for combinations the
client's documentation forbids."""

from __future__ import annotations

from typing import Any

import httpx

from band_server.context import Platform
from conftest import Seeded, make_agent


def h(key: str) -> dict[str, str]:
    return {"X-API-Key": key}


async def _room(client: httpx.AsyncClient, s: Seeded, *members: str) -> str:
    r = await client.post("/api/v1/me/chats", json={}, headers=h(s.user_key))
    room: str = r.json()["data"]["id"]
    for who in members:
        body = {"participant": {"participant_id": who}}
        r = await client.post(
            f"/api/v1/me/chats/{room}/participants", json=body, headers=h(s.user_key)
        )
        assert r.status_code == 201, r.text
    return room


async def _say(client: httpx.AsyncClient, s: Seeded, room: str, text: str) -> str:
    r = await client.post(
        f"/api/v1/me/chats/{room}/messages",
        json={"message": {"content": text}},
        headers=h(s.user_key),
    )
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def _think(client: httpx.AsyncClient, s: Seeded, room: str, text: str) -> str:
    body = {"event": {"content": text, "message_type": "thought"}}
    r = await client.post(f"/api/v1/agent/chats/{room}/events", json=body, headers=h(s.agent_key))
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def _read(client: httpx.AsyncClient, s: Seeded, room: str, **params: Any) -> httpx.Response:
    return await client.get(
        f"/api/v1/me/chats/{room}/messages", params=params, headers=h(s.user_key)
    )


def _ids(r: httpx.Response) -> list[str]:
    assert r.status_code == 200, r.text
    return [m["id"] for m in r.json()["data"]]


async def test_room_rows_carry_what_include_asks_for_and_nothing_else(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    other, _, _ = await make_agent(platform, seeded.user_id, "Other")
    group = await _room(client, seeded, seeded.agent_id, other)
    direct = await _room(client, seeded, seeded.agent_id)
    last = await _say(client, seeded, group, f"@{seeded.agent_handle} hello")

    plain = await client.get("/api/v1/me/chats", headers=h(seeded.user_key))
    rows = {r["id"]: r for r in plain.json()["data"]}
    assert list(rows) == [direct, group], "newest first by default"
    assert rows[group]["type"] == "group" and rows[direct]["type"] == "direct"
    assert rows[group]["status"] == "active" and rows[group]["last_message_at"]
    assert rows[direct]["last_message_at"] is None
    for absent in ("participants", "last_message", "membership", "my_role", "via_agent_ids"):
        assert absent not in rows[group], absent
    assert "total_count" not in plain.json()["metadata"]

    full = await client.get(
        "/api/v1/me/chats",
        params=[("include", "participants,last_message"), ("include", "membership,total_count")],
        headers=h(seeded.user_key),
    )
    row = next(r for r in full.json()["data"] if r["id"] == group)
    assert [p["id"] for p in row["participants"]] == sorted(
        [seeded.user_id, seeded.agent_id, other]
    )
    assert row["participant_count"] == 3 and row["participants_truncated"] is False
    assert row["last_message"]["id"] == last and row["membership"] == "participant"
    assert (row["my_role"], row["my_status"]) == ("owner", "active")
    assert row["via_agent_ids"] == sorted([seeded.agent_id, other])
    empty = next(r for r in full.json()["data"] if r["id"] == direct)
    assert empty["last_message"] is None
    assert full.json()["metadata"]["total_count"] == 2

    r = await client.get(
        "/api/v1/me/chats",
        params={"include": "participants,agent_roomz"},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 422 and "/include/1" in r.json()["error"]["details"], r.text


async def test_room_list_filters_sorts_and_walks_by_cursor(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    made = [await _room(client, seeded, seeded.agent_id) for _ in range(3)]
    await _say(
        client, seeded, made[0], "touch the oldest"
    )  # moves nothing: updated_at is the room's
    r = await client.patch(
        f"/api/v1/me/chats/{made[0]}",
        json={"chat": {"title": "Renamed"}},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 200
    walked, cursor = [], None
    while True:
        params: dict[str, Any] = {"limit": 1, "include": "total_count"}
        if cursor:
            params["cursor"] = cursor
        page = (
            await client.get("/api/v1/me/chats", params=params, headers=h(seeded.user_key))
        ).json()
        walked += [row["id"] for row in page["data"]]
        assert ("total_count" in page["metadata"]) == (cursor is None)
        cursor = page["metadata"]["next_cursor"]
        if not page["metadata"]["has_more"]:
            break
    assert walked == made[::-1]
    by_update = await client.get(
        "/api/v1/me/chats",
        params={"sort_by": "updated_at", "order": "desc"},
        headers=h(seeded.user_key),
    )
    assert _ids(by_update)[0] == made[0]
    assert (
        _ids(
            await client.get(
                "/api/v1/me/chats", params={"type": "task"}, headers=h(seeded.user_key)
            )
        )
        == []
    )
    assert (
        _ids(
            await client.get(
                "/api/v1/me/chats", params={"status": "closed"}, headers=h(seeded.user_key)
            )
        )
        == []
    )
    offset = await client.get(
        "/api/v1/me/chats", params={"page": 2, "page_size": 2}, headers=h(seeded.user_key)
    )
    assert _ids(offset) == [made[0]] and offset.json()["metadata"]["total_pages"] == 2
    r = await client.get(
        "/api/v1/me/chats",
        params={"cursor": cursor or "x", "sort_by": "updated_at"},
        headers=h(seeded.user_key),
    )
    assert r.status_code == 422, "a cursor is only valid for the sort it was issued under"


async def test_message_counts_and_agent_rosters(client: httpx.AsyncClient, seeded: Seeded) -> None:
    room = await _room(client, seeded, seeded.agent_id)
    await _say(client, seeded, room, "one")
    await _say(client, seeded, room, "two")
    await _think(client, seeded, room, "hmm")
    r = await client.get(
        f"/api/v1/me/chats/{room}", params={"include": "message_counts"}, headers=h(seeded.user_key)
    )
    assert r.json()["data"]["message_counts"] == {"text": 2, "thought": 1} | {
        k: None
        for k in ("tool_call", "tool_result", "error", "task", "attention", "system", "participant")
    }
    plain = await client.get(f"/api/v1/me/chats/{room}", headers=h(seeded.user_key))
    assert "message_counts" not in plain.json()["data"]
    r = await client.get(
        "/api/v1/agent/chats", params={"include": "participants"}, headers=h(seeded.agent_key)
    )
    row = r.json()["data"][0]
    assert row["participant_count"] == 2 and {p["id"] for p in row["participants"]} == {
        seeded.user_id,
        seeded.agent_id,
    }
    plain = await client.get("/api/v1/agent/chats", headers=h(seeded.agent_key))
    assert "participants" not in plain.json()["data"][0]
    r = await client.get(
        "/api/v1/agent/chats", params={"include": "last_message"}, headers=h(seeded.agent_key)
    )
    assert r.status_code == 422


async def test_timeline_type_filters_and_since(client: httpx.AsyncClient, seeded: Seeded) -> None:
    room = await _room(client, seeded, seeded.agent_id)
    first = await _say(client, seeded, room, "first")
    thought = await _think(client, seeded, room, "thinking")
    last = await _say(client, seeded, room, "last")
    assert _ids(await _read(client, seeded, room, message_type="thought")) == [thought]
    # Newest first, as the client's documentation says of the plain list.
    assert _ids(await _read(client, seeded, room, message_types="text,thought")) == [
        last,
        thought,
        first,
    ]
    assert _ids(await _read(client, seeded, room, exclude_message_types="thought")) == [last, first]
    repeated = await client.get(
        f"/api/v1/me/chats/{room}/messages",
        params=[("exclude_message_types", "thought"), ("exclude_message_types", "text")],
        headers=h(seeded.user_key),
    )
    assert _ids(repeated) == []
    at = (await _read(client, seeded, room)).json()["data"][-1]["inserted_at"]
    assert _ids(await _read(client, seeded, room, since=at)) == [last, thought]
    oldest_first = await _read(client, seeded, room, since=at, sort_order="asc")
    assert _ids(oldest_first) == [thought, last]

    for params in (
        {"message_type": "text", "message_types": "text"},
        {"since": at, "cursor": "abc"},
        {"after": first, "before": last},
        {"around": first, "page": 1},
    ):
        r = await _read(client, seeded, room, **params)
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_params", (
            params,
            r.text,
        )
    r = await _read(client, seeded, room, message_types="text, thought")
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"


async def test_anchored_reads_after_before_around(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room = await _room(client, seeded, seeded.agent_id)
    said = [await _say(client, seeded, room, f"message {i}") for i in range(7)]
    after = await _read(client, seeded, room, after=said[2], limit=2)
    assert _ids(after) == said[3:5] and after.json()["metadata"]["has_more"] is True
    assert after.json()["metadata"]["next_cursor"] is None
    before = await _read(client, seeded, room, before=said[2], limit=5)
    assert _ids(before) == [said[1], said[0]] and before.json()["metadata"]["has_more"] is False
    around = await _read(client, seeded, room, around=said[3], limit=3)
    assert _ids(around) == [said[4], said[3], said[2]]
    meta = around.json()["metadata"]
    assert (meta["has_newer"], meta["has_older"]) == (True, True)
    edge = await _read(client, seeded, room, around=said[6], limit=3)
    assert _ids(edge) == [said[6], said[5], said[4]], "the older side fills the window"
    assert edge.json()["metadata"]["has_newer"] is False
    thought = await _think(client, seeded, room, "hidden by the filter")
    filtered = await _read(client, seeded, room, around=thought, limit=2, message_type="text")
    assert _ids(filtered) == [said[6], said[5]], "a filtered-out anchor only marks the place"
    other = await _room(client, seeded)
    stranger = await _say(client, seeded, other, "elsewhere")
    r = await _read(client, seeded, room, after=stranger)
    assert r.status_code == 404, "an anchor from another room is not a message of this room"


async def test_since_takes_only_an_rfc3339_date_time(
    client: httpx.AsyncClient, seeded: Seeded
) -> None:
    room = await _room(client, seeded, seeded.agent_id)
    await _say(client, seeded, room, "one")
    for bad in ("0.5", "1700000000", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00"):
        r = await _read(client, seeded, room, since=bad)
        assert r.status_code == 422 and "/since" in r.json()["error"]["details"], (bad, r.text)
    assert len(_ids(await _read(client, seeded, room, since="2000-01-01T00:00:00.5+02:00"))) == 1
