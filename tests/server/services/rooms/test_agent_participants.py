"""Agent surface: a room's participants and the activity indicator."""

from __future__ import annotations

import httpx
import pytest
from agent_testkit import World, key, make_room, make_world, recording

from band_server.context import Platform
from conftest import Seeded, make_agent, make_user


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def test_participants_lists_the_active_roster(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    r = await client.get(w.url("/participants"), headers=w.echo_key)
    assert r.status_code == 200
    roster = {p["id"]: p for p in r.json()["data"]}
    assert list(roster) == [w.alice, w.echo, w.helper_id, w.bob_id]
    alice = roster[w.alice]
    assert alice == {
        "id": w.alice,
        "role": "owner",
        "status": "active",
        "type": "User",
        "name": "Alice",
        "handle": "alice",
        "description": None,
        "online": False,
    }
    echo = roster[w.echo]
    assert (echo["type"], echo["role"], echo["handle"]) == ("Agent", "member", "alice/echo")
    assert echo["description"] == "A helpful test agent"


async def test_add_participant_returns_it_and_broadcasts(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    carol_id, _ = await make_user(platform, "carol", "Carol")
    with recording(platform) as rec:
        r = await client.post(
            w.url("/participants"),
            json={"participant": {"participant_id": carol_id}},
            headers=w.echo_key,
        )
    assert r.status_code == 201
    data = r.json()["data"]
    assert (data["id"], data["role"], data["type"], data["handle"]) == (
        carol_id,
        "member",
        "User",
        "carol",
    )
    events = {(b.topic, b.event) for b in rec.items}
    assert (f"room_participants:{w.room_id}", "participant_added") in events
    assert (f"user_rooms:{carol_id}", "room_added") in events


async def test_add_an_agent_with_a_role(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    other, _, _ = await make_agent(platform, w.alice, "Third")
    r = await client.post(
        w.url("/participants"),
        json={"participant": {"participant_id": other, "role": "admin"}},
        headers=w.echo_key,
    )
    assert r.status_code == 201
    assert r.json()["data"]["role"] == "admin"
    assert r.json()["data"]["type"] == "Agent"


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        (
            {"participant": {"participant_id": "00000000-0000-0000-0000-000000000000"}},
            404,
            "not_found",
        ),
        ({"participant": {"participant_id": ""}}, 422, "validation_error"),
        ({"participant": {"participant_id": "x", "role": "owner"}}, 422, "validation_error"),
        ({"participant": {}}, 422, "validation_error"),
        ({}, 422, "validation_error"),
    ],
)
async def test_add_participant_errors(
    client: httpx.AsyncClient, w: World, body: object, status: int, code: str
) -> None:
    r = await client.post(w.url("/participants"), json=body, headers=w.echo_key)
    assert r.status_code == status
    assert r.json()["error"]["code"] == code
    roster = await client.get(w.url("/participants"), headers=w.echo_key)
    assert len(roster.json()["data"]) == 4


async def test_adding_a_present_participant_is_a_conflict(
    client: httpx.AsyncClient, w: World
) -> None:
    r = await client.post(
        w.url("/participants"),
        json={"participant": {"participant_id": w.bob_id}},
        headers=w.echo_key,
    )
    assert r.status_code == 409


async def test_remove_participant_and_leave(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        r = await client.delete(w.url(f"/participants/{w.helper_id}"), headers=w.echo_key)
    assert r.status_code == 200
    assert r.json()["data"]["id"] == w.helper_id
    assert r.json()["data"]["status"] == "removed"
    assert (f"agent_rooms:{w.helper_id}", "room_removed") in {(b.topic, b.event) for b in rec.items}
    roster = await client.get(w.url("/participants"), headers=w.echo_key)
    assert w.helper_id not in [p["id"] for p in roster.json()["data"]]

    r = await client.delete(w.url(f"/participants/{w.helper_id}"), headers=w.echo_key)
    assert r.status_code == 404

    # the agent leaves; afterwards the room is invisible to it
    r = await client.delete(w.url(f"/participants/{w.echo}"), headers=w.echo_key)
    assert r.status_code == 200
    r = await client.get(w.url(), headers=w.echo_key)
    assert r.status_code == 404


async def test_owner_cannot_be_removed(client: httpx.AsyncClient, w: World) -> None:
    r = await client.delete(w.url(f"/participants/{w.alice}"), headers=w.echo_key)
    assert r.status_code == 403
    roster = await client.get(w.url("/participants"), headers=w.echo_key)
    assert w.alice in [p["id"] for p in roster.json()["data"]]


async def test_participants_of_a_foreign_room_are_404(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    other = await make_room(platform, w.bob_id)
    for method, path, body in (
        ("GET", "/participants", None),
        ("POST", "/participants", {"participant": {"participant_id": w.echo}}),
        ("DELETE", f"/participants/{w.bob_id}", None),
    ):
        r = await client.request(method, w.url(path, room_id=other), json=body, headers=w.echo_key)
        assert r.status_code == 404, (method, path)


# -- activity ---------------------------------------------------------------------------------


async def test_activity_echoes_working_and_announces_changes(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        for working in (True, True, False, False):
            r = await client.post(w.url("/activity"), json={"working": working}, headers=w.echo_key)
            assert r.status_code == 200
            assert r.json() == {"data": {"working": working}}
    changes = rec.events("agent_activity")
    assert [b.payload["working"] for b in changes] == [True, False]
    for b in changes:
        assert b.topic == f"chat_room:{w.room_id}"
        assert b.agents == frozenset()
        assert b.payload["agent_id"] == w.echo
    assert platform.activity.is_working(w.room_id, w.echo) is False


async def test_activity_expires(platform: Platform) -> None:
    board = platform.activity
    board.ttl = 0.0
    assert board.report("r", "a", True) is True
    assert board.is_working("r", "a") is False


@pytest.mark.parametrize("body", [{}, {"working": "maybe"}, {"activity": True}])
async def test_activity_bad_body_is_422(client: httpx.AsyncClient, w: World, body: object) -> None:
    r = await client.post(w.url("/activity"), json=body, headers=w.echo_key)
    assert r.status_code == 422
    assert "/working" in r.json()["error"]["details"]


async def test_activity_in_a_foreign_room_is_404(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    other = await make_room(platform, w.bob_id)
    r = await client.post(
        w.url("/activity", room_id=other), json={"working": True}, headers=w.echo_key
    )
    assert r.status_code == 404
    assert platform.activity.is_working(other, w.echo) is False
    r = await client.post(w.url("/activity"), json={"working": True}, headers=w.alice_key)
    assert r.status_code == 403
    r = await client.post(w.url("/activity"), json={"working": True}, headers=key("nope"))
    assert r.status_code == 401


async def test_a_removed_participant_is_refused_at_once_on_the_write_paths(
    client: httpx.AsyncClient, w: World
) -> None:
    """Rooms and rosters are cached for the hot paths; a removal must still bite immediately."""
    post = {"message": {"content": "hello", "mentions": [{"id": w.alice}]}}
    warm = await client.post(w.url("/messages"), json=post, headers=key(w.helper_key))
    assert warm.status_code == 201  # the room is now in the roster cache
    gone = await client.delete(w.url(f"/participants/{w.helper_id}"), headers=w.echo_key)
    assert gone.status_code == 200

    again = await client.post(w.url("/messages"), json=post, headers=key(w.helper_key))
    assert again.status_code == 404
    event = {"event": {"content": "thinking", "message_type": "thought"}}
    refused = await client.post(w.url("/events"), json=event, headers=key(w.helper_key))
    assert refused.status_code == 404
    mention = {"message": {"content": "hi", "mentions": [{"id": w.helper_id}]}}
    r = await client.post(w.url("/messages"), json=mention, headers=w.echo_key)
    assert r.status_code == 422
    assert r.json()["error"]["message"] == "mentioned_participant_not_in_room"
