"""Agent surface: posting text messages and events, mention routing, refused posts."""

from __future__ import annotations

import dataclasses
from datetime import datetime

import httpx
import pytest
from agent_testkit import (
    World,
    counts,
    key,
    make_room,
    make_world,
    person_posts,
    post,
    recording,
    room_log,
)

from band_server.context import Platform
from band_server.services.messages.mentions import NOT_IN_ROOM
from conftest import Seeded, make_agent, make_user


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def test_reply_mentioning_a_person_is_stored_with_a_prepended_token(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        r = await post(client, w.echo_key, w.url(), "Hi back!", {"handle": "alice", "id": w.alice})
    assert r.status_code == 201
    data = r.json()["data"]
    assert data["success"] is True
    assert data["recipients"] == [{"id": w.alice, "handle": "alice", "name": "Alice"}]

    [created] = rec.events("message_created")
    assert created.topic == f"chat_room:{w.room_id}"
    assert created.agents == frozenset()  # a person is mentioned: no agent socket gets it
    assert created.users is True
    payload = created.payload
    assert payload["id"] == data["id"]
    assert payload["content"] == f"@[[{w.alice}]] Hi back!"
    assert payload["message_type"] == "text"
    assert payload["sender_id"] == w.echo
    assert payload["sender_type"] == "Agent"
    assert payload["sender_name"] == "Echo"
    assert payload["chat_room_id"] == w.room_id
    assert payload["metadata"] == {
        "mentions": [{"id": w.alice, "handle": "alice", "name": "Alice", "username": "alice"}],
        "status": "sent",
    }
    assert payload["inserted_at"].endswith("Z")
    assert len(payload["inserted_at"].split(".")[1]) == 7  # microseconds + Z
    datetime.fromisoformat(payload["inserted_at"])
    assert await counts(platform, w.room_id) == (1, 0, 0)  # no delivery for a person


async def test_mentioning_an_agent_routes_only_to_that_agent(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        r = await post(client, w.echo_key, w.url(), "over to you", {"id": w.helper_id})
    assert r.status_code == 201
    assert r.json()["data"]["recipients"] == [
        {"id": w.helper_id, "handle": w.helper_handle, "name": "Helper"}
    ]
    [created] = rec.events("message_created")
    assert created.agents == frozenset({w.helper_id})
    assert await counts(platform, w.room_id) == (1, 1, 0)

    nxt = await client.get(w.url("/messages/next"), headers=key(w.helper_key))
    assert nxt.status_code == 200
    assert nxt.json()["data"]["id"] == r.json()["data"]["id"]
    # the sender never gets its own message
    own = await client.get(w.url("/messages/next"), headers=w.echo_key)
    assert own.status_code == 204


async def test_inline_handle_is_rewritten_in_place_not_prepended(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        r = await post(
            client,
            w.echo_key,
            w.url(),
            f"Thanks @{w.helper_handle}, and @alice.",
            {"handle": w.helper_handle},
            {"handle": "@Alice"},
        )
    assert r.status_code == 201
    content = rec.events("message_created")[0].payload["content"]
    assert content == f"Thanks @[[{w.helper_id}]], and @[[{w.alice}]]."


async def test_mention_by_name_resolves_when_unique(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await post(client, w.echo_key, w.url(), "hey", {"name": "Bob"})
    assert r.status_code == 201
    assert r.json()["data"]["recipients"][0]["id"] == w.bob_id


async def test_several_agents_each_get_one_delivery_and_duplicates_merge(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        r = await post(
            client,
            w.echo_key,
            w.url(),
            "both of you",
            {"id": w.helper_id},
            {"handle": w.helper_handle},
            {"id": w.bob_id},
        )
    assert r.status_code == 201
    assert [x["id"] for x in r.json()["data"]["recipients"]] == [w.helper_id, w.bob_id]
    assert rec.events("message_created")[0].agents == frozenset({w.helper_id})
    assert await counts(platform, w.room_id) == (1, 1, 0)


async def test_self_mention_is_ignored(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await post(client, w.echo_key, w.url(), "me and you", {"id": w.echo}, {"id": w.alice})
    assert r.status_code == 201
    assert [x["id"] for x in r.json()["data"]["recipients"]] == [w.alice]
    assert await counts(platform, w.room_id) == (1, 0, 0)


async def test_only_a_self_mention_is_refused_as_no_mention(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await post(client, w.echo_key, w.url(), "talking to myself", {"id": w.echo})
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "validation_error"
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_agent_post_without_mentions_is_422(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await post(client, w.echo_key, w.url(), "hello?")
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "validation_error"
    assert "/message/mentions" in err["details"]
    assert await counts(platform, w.room_id) == (0, 0, 0)


@pytest.mark.parametrize("content", ["", "   ", "\n\t"])
async def test_blank_content_is_422_cant_be_blank(
    client: httpx.AsyncClient, platform: Platform, w: World, content: str
) -> None:
    with recording(platform) as rec:
        r = await post(client, w.echo_key, w.url(), content, {"id": w.alice})
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "validation_error"
    assert err["message"] == "content can't be blank"
    assert err["details"] == {"/message/content": ["can't be blank"]}
    assert rec.items == []
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_mention_outside_the_room_is_refused_exactly(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    carol_id, _ = await make_user(platform, "carol")
    stranger, _, stranger_handle = await make_agent(platform, carol_id, "Stranger")
    bad_refs = [
        {"id": stranger},
        {"handle": stranger_handle},
        {"id": "00000000-0000-0000-0000-000000000000"},
        {"handle": "nobody"},
        {},
    ]
    for ref in bad_refs:
        with recording(platform) as rec:
            r = await post(client, w.echo_key, w.url(), "hi", {"id": w.alice}, ref)
        assert r.status_code == 422, ref
        err = r.json()["error"]
        assert err["code"] == "validation_error"
        assert err["message"] == NOT_IN_ROOM == "mentioned_participant_not_in_room"
        assert "/message/mentions/1" in err["details"]
        assert rec.items == []
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_removed_participant_cannot_be_mentioned(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await client.delete(w.url(f"/participants/{w.bob_id}"), headers=w.echo_key)
    assert r.status_code == 200
    r = await post(client, w.echo_key, w.url(), "bob?", {"id": w.bob_id})
    assert r.status_code == 422
    assert r.json()["error"]["message"] == NOT_IN_ROOM


async def test_bad_shapes_are_422_with_pointers(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    bodies: list[tuple[object, str]] = [
        ({}, "/message"),
        ({"message": {"mentions": []}}, "/message/content"),
        ({"message": {"content": 5, "mentions": []}}, "/message/content"),
        ({"message": {"content": "x" * 40_000, "mentions": [{"id": w.alice}]}}, "/message/content"),
        ({"message": {"content": "hi", "mentions": "alice"}}, "/message/mentions"),
    ]
    for body, pointer in bodies:
        r = await client.post(w.url("/messages"), json=body, headers=w.echo_key)
        assert r.status_code == 422, body
        assert r.json()["error"]["code"] == "validation_error"
        assert pointer in r.json()["error"]["details"], r.json()
    r = await client.post(
        w.url("/messages"),
        content=b'{"message": ',
        headers={**w.echo_key, "Content-Type": "application/json"},
    )
    assert r.status_code == 400
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_unknown_attachment_is_422(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await client.post(
        w.url("/messages"),
        json={
            "message": {
                "content": "see file",
                "mentions": [{"id": w.alice}],
                "attachment_ids": ["f1"],
            }
        },
        headers=w.echo_key,
    )
    assert r.status_code == 422
    assert r.json()["error"]["message"] == "unknown_attachment"
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_posting_in_a_foreign_room_is_404_and_changes_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    other = await make_room(platform, w.bob_id)
    r = await post(client, w.echo_key, w.url(room_id=other), "hi", {"id": w.bob_id})
    assert r.status_code == 404
    assert r.json()["error"]["code"] == "not_found"
    r = await client.post(
        w.url("/events", room_id=other),
        json={"event": {"content": "x", "message_type": "thought", "metadata": None}},
        headers=w.echo_key,
    )
    assert r.status_code == 404
    assert await counts(platform, other) == (0, 0, 0)


async def test_person_key_cannot_post_on_the_agent_surface(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await post(client, w.alice_key, w.url(), "hi", {"id": w.echo})
    assert r.status_code == 403
    r = await post(client, key("band_a_bogus"), w.url(), "hi", {"id": w.echo})
    assert r.status_code == 401
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_seq_increases_per_room(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    for i in range(3):
        r = await post(client, w.echo_key, w.url(), f"n{i}", {"id": w.alice})
        assert r.status_code == 201
    log = await room_log(platform, w.room_id)
    assert [m.seq for m in log.items] == [1, 2, 3]


# -- events -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "message_type", ["tool_call", "tool_result", "thought", "error", "task", "attention"]
)
async def test_event_is_stored_and_reaches_people_only(
    client: httpx.AsyncClient, platform: Platform, w: World, message_type: str
) -> None:
    metadata = {"name": "search", "args": {"q": "x"}, "tool_call_id": "c1"}
    with recording(platform) as rec:
        r = await client.post(
            w.url("/events"),
            json={
                "event": {"content": "thinking", "message_type": message_type, "metadata": metadata}
            },
            headers=w.echo_key,
        )
    assert r.status_code == 201
    data = r.json()["data"]
    assert data["message_type"] == message_type
    assert data["success"] is True
    [created] = rec.events("message_created")
    assert created.agents == frozenset()
    assert created.users is True
    assert created.payload["message_type"] == message_type
    assert created.payload["metadata"] == metadata
    assert await counts(platform, w.room_id) == (1, 0, 0)


async def test_event_with_null_metadata_is_accepted(client: httpx.AsyncClient, w: World) -> None:
    r = await client.post(
        w.url("/events"),
        json={"event": {"content": "x", "message_type": "thought", "metadata": None}},
        headers=w.echo_key,
    )
    assert r.status_code == 201


@pytest.mark.parametrize(
    ("event", "pointer"),
    [
        ({"content": "x", "message_type": "usage"}, "/event/message_type"),
        ({"content": "x", "message_type": "text"}, "/event/message_type"),
        ({"content": "", "message_type": "thought"}, "/event/content"),
        ({"content": "  ", "message_type": "thought"}, "/event/content"),
        ({"content": "x" * 16_385, "message_type": "thought"}, "/event/content"),
        ({"content": "x", "message_type": "thought", "metadata": [1]}, "/event/metadata"),
    ],
)
async def test_bad_events_are_422_and_change_nothing(
    client: httpx.AsyncClient,
    platform: Platform,
    w: World,
    event: dict[str, object],
    pointer: str,
) -> None:
    r = await client.post(w.url("/events"), json={"event": event}, headers=w.echo_key)
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "validation_error"
    assert pointer in r.json()["error"]["details"]
    assert await counts(platform, w.room_id) == (0, 0, 0)


async def test_event_at_the_size_limit_is_accepted(client: httpx.AsyncClient, w: World) -> None:
    r = await client.post(
        w.url("/events"),
        json={"event": {"content": "x" * 16_384, "message_type": "thought", "metadata": None}},
        headers=w.echo_key,
    )
    assert r.status_code == 201


# -- loop guard -------------------------------------------------------------------------------


async def test_agent_to_agent_chain_is_bounded_until_a_person_posts(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    platform.settings = dataclasses.replace(platform.settings, agent_loop_limit=3)
    helper = key(w.helper_key)
    for i in range(3):
        sender, target = (w.echo_key, w.helper_id) if i % 2 == 0 else (helper, w.echo)
        r = await post(client, sender, w.url(), f"ping {i}", {"id": target})
        assert r.status_code == 201
    r = await post(client, helper, w.url(), "ping 3", {"id": w.echo})
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "loop_limit_reached"
    assert await counts(platform, w.room_id) == (3, 3, 0)
    # agents may still address people
    r = await post(client, helper, w.url(), "help?", {"id": w.alice})
    assert r.status_code == 201
    # a person speaking resets the chain
    await person_posts(platform, w, "carry on")
    r = await post(client, helper, w.url(), "ping 4", {"id": w.echo})
    assert r.status_code == 201
