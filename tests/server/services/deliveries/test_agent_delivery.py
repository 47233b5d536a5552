"""Agent surface: the delivery lifecycle (/next, /processing, /processed, /failed)."""

from __future__ import annotations

import httpx
import pytest
from agent_testkit import (
    World,
    counts,
    key,
    make_room,
    make_world,
    mark,
    person_posts,
    recording,
)

from band_server.context import Platform
from band_server.services.deliveries.wire import delivery_statuses
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def next_id(client: httpx.AsyncClient, w: World) -> str | None:
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    if r.status_code == 204:
        assert r.content == b""
        return None
    assert r.status_code == 200
    return str(r.json()["data"]["id"])


async def test_next_is_204_with_empty_body_when_nothing_is_pending(
    client: httpx.AsyncClient, w: World
) -> None:
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    assert r.status_code == 204
    assert r.content == b""


async def test_next_serves_the_pending_message_with_delivery_status(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hello agent", w.echo)
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    assert r.status_code == 200
    data = r.json()["data"]
    assert data["id"] == msg
    assert data["content"] == f"@[[{w.echo}]] hello agent"
    assert data["sender_type"] == "User"
    assert data["sender_id"] == w.alice
    status = data["metadata"]["delivery_status"][w.echo]
    assert status["status"] == "delivered"
    assert status["current_attempt"] == 0
    assert status["attempts"] == []
    assert status["delivered_at"].endswith("Z")
    assert status["processed_at"] is None
    assert data["metadata"]["mentions"][0]["id"] == w.echo
    # /next does not consume
    assert await next_id(client, w) == msg


async def test_full_lifecycle_and_idempotent_marks(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "do it", w.echo)

    r = await mark(client, w, msg, "processing")
    assert r.status_code == 200
    assert r.json() == {
        "data": {"id": msg, "status": "processing", "attempt_number": 1, "success": True}
    }
    # repeated /processing while live: no new attempt
    r = await mark(client, w, msg, "processing")
    assert r.status_code == 200
    assert r.json()["data"]["attempt_number"] == 1
    assert await counts(platform, w.room_id) == (1, 1, 1)
    # processing is still served by /next (crash recovery)
    assert await next_id(client, w) == msg

    r = await mark(client, w, msg, "processed")
    assert r.status_code == 200
    assert r.json()["data"] == {
        "id": msg,
        "status": "processed",
        "attempt_number": 1,
        "success": True,
    }
    assert await next_id(client, w) is None
    # replayed /processed answers 200 again, unchanged
    r = await mark(client, w, msg, "processed")
    assert r.status_code == 200
    assert r.json()["data"]["status"] == "processed"
    assert await counts(platform, w.room_id) == (1, 1, 1)


async def test_processed_without_a_live_attempt_is_rejected(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "do it", w.echo)
    r = await mark(client, w, msg, "processed")
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "validation_error"
    assert err["details"]["/processing_attempt"]
    assert await counts(platform, w.room_id) == (1, 1, 0)
    assert await next_id(client, w) == msg
    # A processed message cannot fail afterwards.
    assert (await mark(client, w, msg, "processing")).status_code == 200
    assert (await mark(client, w, msg, "processed")).status_code == 200
    r = await mark(client, w, msg, "failed", json={"error": "x"})
    assert r.status_code == 422
    assert r.json()["error"]["details"]["/processing_attempt"]


async def test_failed_is_served_again_and_processing_opens_a_new_attempt(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "try", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    r = await mark(client, w, msg, "failed", json={"error": "  model timed out \n"})
    assert r.status_code == 200
    assert r.json()["data"] == {"id": msg, "status": "failed", "attempt_number": 1, "success": True}
    # replay of /failed answers again
    r = await mark(client, w, msg, "failed", json={"error": "again"})
    assert r.status_code == 200
    assert r.json()["data"]["status"] == "failed"

    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    status = r.json()["data"]["metadata"]["delivery_status"][w.echo]
    assert status["status"] == "failed"
    assert status["attempts"][0]["status"] == "failed"
    assert status["attempts"][0]["error"] == "model timed out"

    r = await mark(client, w, msg, "processing")
    assert r.json()["data"]["attempt_number"] == 2
    # /processed after a terminal processed opens attempt 3 on the next /processing
    assert (await mark(client, w, msg, "processed")).status_code == 200
    r = await mark(client, w, msg, "processing")
    assert r.json()["data"]["attempt_number"] == 3
    assert await next_id(client, w) == msg


@pytest.mark.parametrize("body", [None, {}, {"error": ""}, {"error": "   "}, {"error": None}])
async def test_blank_failure_becomes_unknown_error(
    client: httpx.AsyncClient, platform: Platform, w: World, body: object
) -> None:
    msg = await person_posts(platform, w, "try", w.echo)
    await mark(client, w, msg, "processing")
    r = await mark(client, w, msg, "failed", json=body)
    assert r.status_code == 200
    nxt = await client.get(w.url("/messages/next"), headers=w.echo_key)
    attempts = nxt.json()["data"]["metadata"]["delivery_status"][w.echo]["attempts"]
    assert attempts[0]["error"] == "Unknown error"


async def test_next_serves_the_oldest_pending_first(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await person_posts(platform, w, "one", w.echo)
    await person_posts(platform, w, "not for echo", w.helper_id)
    second = await person_posts(platform, w, "two", w.echo)
    assert await next_id(client, w) == first
    await mark(client, w, first, "processing")
    await mark(client, w, first, "processed")
    assert await next_id(client, w) == second
    await mark(client, w, second, "processing")
    await mark(client, w, second, "processed")
    assert await next_id(client, w) is None


async def test_next_is_per_room(client: httpx.AsyncClient, platform: Platform, w: World) -> None:
    other_room = await make_room(platform, w.alice, w.echo)
    await person_posts(platform, w, "here", w.echo)
    r = await client.get(w.url("/messages/next", room_id=other_room), headers=w.echo_key)
    assert r.status_code == 204


async def test_marks_on_messages_not_addressed_to_the_agent_are_404(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    for_helper = await person_posts(platform, w, "helper only", w.helper_id)
    other_room = await make_room(platform, w.alice, w.echo)
    mine = await person_posts(platform, w, "for echo", w.echo)
    cases = [
        (w.url(f"/messages/{for_helper}/processing"), None),
        (w.url("/messages/00000000-0000-0000-0000-000000000000/processing"), None),
        (w.url(f"/messages/{mine}/processing", room_id=other_room), None),
        (w.url(f"/messages/{mine}/processed", room_id=other_room), None),
        (w.url(f"/messages/{mine}/failed", room_id=other_room), {"error": "x"}),
    ]
    for url, body in cases:
        r = await client.post(url, headers=w.echo_key, json=body)
        assert r.status_code == 404, url
        assert r.json()["error"]["code"] == "not_found"
    assert await counts(platform, w.room_id) == (2, 2, 0)


async def test_marks_in_a_room_the_agent_left_are_404(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    r = await client.delete(w.url(f"/participants/{w.echo}"), headers=w.echo_key)
    assert r.status_code == 200
    r = await mark(client, w, msg, "processing")
    assert r.status_code == 404
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    assert r.status_code == 404


async def test_person_key_cannot_mark(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    r = await client.post(w.url(f"/messages/{msg}/processing"), headers=w.alice_key)
    assert r.status_code == 403
    assert await counts(platform, w.room_id) == (1, 1, 0)


async def test_transitions_announce_message_updated_to_people_only(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    with recording(platform) as rec:
        await mark(client, w, msg, "processing")
        await mark(client, w, msg, "processing")  # no-op: no announcement
        await mark(client, w, msg, "processed")
        await mark(client, w, msg, "processed")  # replay: no announcement
    updates = rec.events("message_updated")
    assert len(updates) == 2
    for b in updates:
        assert b.topic == f"chat_room:{w.room_id}"
        assert b.agents == frozenset()
        assert b.users is True
        assert b.payload["id"] == msg
    assert updates[0].payload["metadata"]["delivery_status"][w.echo]["status"] == "processing"
    last = updates[1].payload["metadata"]["delivery_status"][w.echo]
    assert last["status"] == "processed"
    assert last["attempts"] == [
        {
            "attempt_number": 1,
            "status": "success",
            "started_at": last["attempts"][0]["started_at"],
            "completed_at": last["attempts"][0]["completed_at"],
        }
    ]
    assert last["processed_at"].endswith("Z")


async def test_person_post_routes_to_mentioned_agents_only(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        await person_posts(platform, w, "hi both", w.echo, w.helper_id, w.bob_id)
        await person_posts(platform, w, "just chatting")
    first, second = rec.events("message_created")
    assert first.agents == frozenset({w.echo, w.helper_id})
    assert second.agents == frozenset()
    assert await next_id(client, w) is not None
    helper = await client.get(w.url("/messages/next"), headers=key(w.helper_key))
    assert helper.status_code == 200


async def test_overlong_failure_is_cut_not_refused(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "try", w.echo)
    await mark(client, w, msg, "processing")
    r = await mark(client, w, msg, "failed", json={"error": "e" * 20_000})
    assert r.status_code == 200
    nxt = await client.get(w.url("/messages/next"), headers=w.echo_key)
    attempts = nxt.json()["data"]["metadata"]["delivery_status"][w.echo]["attempts"]
    assert len(attempts[0]["error"]) == 16_384


async def test_each_announcement_shows_what_was_stored(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """Marks build ``message_updated`` from what they wrote: it must match a fresh read."""
    msg = await person_posts(platform, w, "hi both", w.echo, w.helper_id)
    for what in ("processing", "failed", "processing", "processed"):
        with recording(platform) as rec:
            r = await mark(
                client, w, msg, what, json={"error": "boom"} if what == "failed" else None
            )
            assert r.status_code == 200
        (update,) = rec.events("message_updated")
        async with platform.db.read() as session:
            stored = await delivery_statuses(session, [msg])
        announced = update.payload["metadata"]["delivery_status"]
        assert announced == stored[msg]
        assert set(announced) == {w.echo, w.helper_id}
        assert announced[w.echo]["status"] == what
