"""What ``/next`` serves when a head will not run, and the lease of a ``processing`` attempt.

The policy (docs/decisions.md, "Faults (issue 12)"): first the room's oldest message that is
``delivered`` or ``processing`` within its lease; the ones the agent failed, or whose attempt
has had no sign of life for the lease, only after those. The sweep records an expired attempt
as failed, tells people, and makes the agent resync; a late ``/processed`` still counts.
Time is moved by ageing the attempt's lease clock in the database, never by sleeping.
"""

from __future__ import annotations

import httpx
import pytest
from agent_testkit import (
    World,
    age,
    make_world,
    mark,
    next_id,
    past_the_lease,
    person_posts,
    recording,
    status_of,
)
from sqlalchemy import select

from band_server.context import Platform
from band_server.services.deliveries.leases import EXPIRED_ERROR, LeaseClock
from band_server.store.models import Delivery
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def test_a_failed_head_is_served_after_the_rooms_other_open_messages(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await person_posts(platform, w, "one", w.echo)
    second = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, first, "processing")).status_code == 200
    assert (await mark(client, w, first, "failed", json={"error": "cut"})).status_code == 200

    assert await next_id(client, w) == second  # the room moves on
    assert (await mark(client, w, second, "processing")).status_code == 200
    assert (await mark(client, w, second, "processed")).status_code == 200
    assert await next_id(client, w) == first  # then the retry, once nothing else is open


async def test_failed_heads_are_retried_oldest_first(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    ids = [await person_posts(platform, w, f"m{i}", w.echo) for i in range(3)]
    for msg in (ids[1], ids[0]):
        assert (await mark(client, w, msg, "processing")).status_code == 200
        assert (await mark(client, w, msg, "failed", json={"error": "x"})).status_code == 200
    assert await next_id(client, w) == ids[2]
    assert (await mark(client, w, ids[2], "processing")).status_code == 200
    assert (await mark(client, w, ids[2], "processed")).status_code == 200
    assert await next_id(client, w) == ids[0]


async def test_a_live_attempt_is_served_first_and_one_silent_past_the_lease_after_the_others(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await person_posts(platform, w, "one", w.echo)
    second = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, first, "processing")).status_code == 200
    await age(platform, first, platform.settings.delivery_lease / 2)
    assert await next_id(client, w) == first  # within the lease: crash recovery gets it back

    await age(platform, first, past_the_lease(platform))
    assert await next_id(client, w) == second  # expired: the room is not stopped by it
    # A sign of life (the agent claims it again) gives the attempt its lease back, unchanged.
    r = await mark(client, w, first, "processing")
    assert r.json()["data"] == {
        "id": first,
        "status": "processing",
        "attempt_number": 1,
        "success": True,
    }
    assert await next_id(client, w) == first


async def test_the_sweep_records_an_expired_attempt_as_failed_and_resyncs_the_agent(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    dead = await person_posts(platform, w, "dead turn", w.echo)
    live = await person_posts(platform, w, "live turn", w.helper_id)
    assert (await mark(client, w, dead, "processing")).status_code == 200
    r = await client.post(
        w.url(f"/messages/{live}/processing"), headers={"X-API-Key": w.helper_key}
    )
    assert r.status_code == 200
    await age(platform, dead, past_the_lease(platform))

    with recording(platform) as rec:
        assert await platform.leases.sweep(platform) == {w.echo}
    status = await status_of(client, w, dead)
    assert status["status"] == "failed"
    assert status["attempts"] == [
        {
            "attempt_number": 1,
            "status": "failed",
            "started_at": status["attempts"][0]["started_at"],  # type: ignore[index]
            "completed_at": status["attempts"][0]["completed_at"],  # type: ignore[index]
            "error": EXPIRED_ERROR,
        }
    ]
    [updated] = rec.events("message_updated")  # people see it; agents never get it
    assert updated.payload["id"] == dead
    assert updated.payload["metadata"]["delivery_status"][w.echo]["status"] == "failed"
    assert updated.users and updated.agents == frozenset()
    [resync] = rec.events("lease_expired")  # the agent's sockets, on any node: 1012, no push
    assert resync.meta == {"close_principal": w.echo, "close_code": 1012}
    assert resync.agents == frozenset() and not resync.users
    async with platform.db.read() as session:  # the helper's live attempt is untouched
        helper = await session.scalar(select(Delivery).where(Delivery.message_id == live))
    assert helper is not None and helper.status == "processing"

    with recording(platform) as rec:
        assert await platform.leases.sweep(platform) == set()  # once
    assert rec.items == []
    assert await next_id(client, w) == dead  # served again as a retry
    r = await mark(client, w, dead, "processing")
    assert r.json()["data"]["attempt_number"] == 2


async def test_a_late_processed_settles_an_expired_attempt(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "slow turn", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    await age(platform, msg, past_the_lease(platform))
    await platform.leases.sweep(platform)

    r = await mark(client, w, msg, "processed")  # the agent was alive after all
    assert r.status_code == 200
    assert r.json()["data"]["status"] == "processed"
    status = await status_of(client, w, msg)
    assert status["status"] == "processed"
    [attempt] = status["attempts"]  # type: ignore[misc]
    assert attempt["status"] == "success" and "error" not in attempt
    assert await next_id(client, w) is None


async def test_a_failed_attempt_the_agent_reported_is_not_settled_by_a_late_processed(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "broken turn", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    assert (await mark(client, w, msg, "failed", json={"error": "boom"})).status_code == 200
    assert (await mark(client, w, msg, "processed")).status_code == 422


@pytest.mark.parametrize("sign", ["activity", "event", "message"])
async def test_activity_and_posts_in_the_room_keep_the_lease(
    client: httpx.AsyncClient, platform: Platform, w: World, sign: str
) -> None:
    first = await person_posts(platform, w, "long turn", w.echo)
    second = await person_posts(platform, w, "waiting", w.echo)
    assert (await mark(client, w, first, "processing")).status_code == 200
    await age(platform, first, past_the_lease(platform))
    platform.lease_clock = LeaseClock(every=platform.settings.delivery_lease / 4)

    if sign == "activity":
        r = await client.post(w.url("/activity"), json={"working": True}, headers=w.echo_key)
        assert r.status_code == 200
    elif sign == "event":
        body = {"event": {"content": "thinking", "message_type": "thought", "metadata": None}}
        r = await client.post(w.url("/events"), json=body, headers=w.echo_key)
        assert r.status_code == 201
    else:
        body = {"message": {"content": "still on it", "mentions": [{"id": w.alice}]}}
        r = await client.post(w.url("/messages"), json=body, headers=w.echo_key)
        assert r.status_code == 201, r.text

    assert await next_id(client, w) == first  # alive again: served first
    assert await platform.leases.sweep(platform) == set()
    assert (await status_of(client, w, second))["status"] == "delivered"


async def test_activity_elsewhere_or_working_false_is_no_sign_of_life(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "dead turn", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    await age(platform, msg, past_the_lease(platform))
    r = await client.post(w.url("/activity"), json={"working": False}, headers=w.echo_key)
    assert r.status_code == 200
    r = await client.post(  # another agent working in the same room
        w.url("/activity"), json={"working": True}, headers={"X-API-Key": w.helper_key}
    )
    assert r.status_code == 200
    assert await platform.leases.sweep(platform) == {w.echo}


async def test_a_failure_reported_without_a_claim_is_recorded_and_passed_over(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """band-sdk fails a turn whose context read was cut before its claim: refused, the message
    stayed ``delivered`` at the head of a room whose agent then skips it for good."""
    first = await person_posts(platform, w, "one", w.echo)
    second = await person_posts(platform, w, "two", w.echo)
    with recording(platform) as rec:
        r = await mark(client, w, first, "failed", json={"error": "context read cut"})
    assert r.status_code == 200
    answer = {"id": first, "status": "failed", "attempt_number": 1, "success": True}
    assert r.json()["data"] == answer
    [updated] = rec.events("message_updated")  # one announcement, of the failed attempt
    status = updated.payload["metadata"]["delivery_status"][w.echo]
    assert status["status"] == "failed"
    assert [(a["status"], a.get("error")) for a in status["attempts"]] == [
        ("failed", "context read cut")
    ]
    assert await next_id(client, w) == second
    r = await mark(client, w, first, "failed", json={"error": "again"})  # a replay
    assert r.json()["data"]["attempt_number"] == 1


async def test_of_silent_attempts_in_one_room_only_the_oldest_expires(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """A room's turns are serial: the later silent attempts were claimed and never started
    (band-sdk's control scan claims its whole open queue). They get a new lease and are served
    before the dead turn's retry, which would otherwise stop the drain of an agent that skips
    it."""
    ids = [await person_posts(platform, w, f"m{i}", w.echo) for i in range(3)]
    for msg in ids:
        assert (await mark(client, w, msg, "processing")).status_code == 200
        await age(platform, msg, past_the_lease(platform))

    assert await platform.leases.sweep(platform) == {w.echo}
    assert [(await status_of(client, w, m))["status"] for m in ids] == [
        "failed",
        "processing",
        "processing",
    ]
    assert await next_id(client, w) == ids[1]  # renewed: within its lease again
    for msg in ids[1:]:
        assert (await mark(client, w, msg, "processed")).status_code == 200
    assert await next_id(client, w) == ids[0]


async def test_a_claim_moves_the_lease_clock_so_the_turns_first_sign_of_life_writes_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """``/processing`` writes the attempt's lease clock itself: the turn's activity right after
    it is not written again (no write unit), and the attempt stays alive."""
    platform.lease_clock = LeaseClock(every=platform.settings.delivery_lease / 4)
    msg = await person_posts(platform, w, "a turn", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    units = platform.db.batches.units
    r = await client.post(w.url("/activity"), json={"working": True}, headers=w.echo_key)
    assert r.status_code == 200
    assert platform.db.batches.units == units  # nothing written for this sign of life
    assert await platform.leases.sweep(platform) == set()
    assert (await status_of(client, w, msg))["status"] == "processing"
