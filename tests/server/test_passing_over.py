"""A head the agent went past is passed over by the next ``/next`` (issue 27).

band-sdk 6.0.1 gives up a message for the life of its process ("exceeded max retries") and then
skips it with no write each time ``/next`` serves it; its drain stops when ``/next`` answers the
same id twice. When an agent asks ``/next`` again, on the same connection, and the head it was
served is untouched since (no claim, mark or sign of life), the platform records that head's
attempt ``failed`` and answers with the room's next open message; the lease no longer has to
run out first. A head the agent claims, or one it is served again after it (re)connected, is
never passed over: crash recovery still gets the agent's own interrupted turn back first.
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
from socket_testkit import phx, seed

from band_server.context import Platform
from band_server.services.deliveries import PASSED_OVER_ERROR
from band_server.services.leases import LeaseClock
from conftest import LiveServer, Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def attempts(status: dict[str, object]) -> list[tuple[object, object]]:
    found = status["attempts"]
    assert isinstance(found, list)
    return [(a["status"], a.get("error")) for a in found]


async def test_a_claimed_head_served_again_is_passed_over_and_the_room_moves_on(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """The attempt of a turn that failed while the node was down (its ``/failed`` lost too):
    served, skipped without a write, asked again."""
    given_up = await person_posts(platform, w, "one", w.echo)
    waiting = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, given_up, "processing")).status_code == 200
    assert await next_id(client, w) == given_up  # its own open turn first (crash recovery)

    with recording(platform) as rec:
        assert await next_id(client, w) == waiting  # asked again, nothing written: passed over
    status = await status_of(client, w, given_up)
    assert status["status"] == "failed"
    assert attempts(status) == [("failed", PASSED_OVER_ERROR)]
    [updated] = rec.events("message_updated")  # people see it, as any mark
    assert updated.payload["id"] == given_up and updated.agents == frozenset()

    assert (await mark(client, w, waiting, "processing")).status_code == 200
    assert (await mark(client, w, waiting, "processed")).status_code == 200
    assert await next_id(client, w) == given_up  # served again once nothing else is open
    assert await next_id(client, w) == given_up  # (and left as it is: it is failed already)
    assert attempts(await status_of(client, w, given_up)) == [("failed", PASSED_OVER_ERROR)]


async def test_a_head_never_claimed_gets_one_failed_attempt_when_passed_over(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    skipped = await person_posts(platform, w, "one", w.echo)
    waiting = await person_posts(platform, w, "two", w.echo)
    assert await next_id(client, w) == skipped
    assert await next_id(client, w) == waiting
    status = await status_of(client, w, skipped)
    assert status["status"] == "failed" and status["current_attempt"] == 1
    assert attempts(status) == [("failed", PASSED_OVER_ERROR)]
    # The agent can still run it: a claim opens attempt 2.
    assert (await mark(client, w, skipped, "processing")).json()["data"]["attempt_number"] == 2


@pytest.mark.parametrize("touch", ["processing", "activity", "failed"])
async def test_a_head_the_agent_touched_since_it_was_served_is_served_as_usual(
    client: httpx.AsyncClient, platform: Platform, w: World, touch: str
) -> None:
    head = await person_posts(platform, w, "one", w.echo)
    other = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, head, "processing")).status_code == 200
    assert await next_id(client, w) == head
    if touch == "activity":  # a sign of life of the turn (its lease clock moves)
        platform.lease_clock = LeaseClock(every=0.0)  # written, not thinned
        r = await client.post(w.url("/activity"), json={"working": True}, headers=w.echo_key)
        assert r.status_code == 200
        assert await next_id(client, w) == head
        assert (await status_of(client, w, head))["status"] == "processing"
    elif touch == "processing":  # claimed again (a no-op on the live attempt, but a write)
        assert (await mark(client, w, head, "processing")).status_code == 200
        assert await next_id(client, w) == head
        assert (await status_of(client, w, head))["status"] == "processing"
    else:  # the agent reported it failed itself: served after the others, its error kept
        assert (await mark(client, w, head, "failed", json={"error": "boom"})).status_code == 200
        assert await next_id(client, w) == other
        assert attempts(await status_of(client, w, head)) == [("failed", "boom")]


async def test_a_late_processed_settles_a_passed_over_attempt(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "slow ack", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    assert await next_id(client, w) == msg
    assert await next_id(client, w) == msg  # the only open one: passed over, served last
    r = await mark(client, w, msg, "processed")  # its ack arrives after all
    assert r.status_code == 200 and r.json()["data"]["status"] == "processed"
    assert attempts(await status_of(client, w, msg)) == [("success", None)]
    assert await next_id(client, w) is None


async def test_an_attempt_past_its_lease_is_left_to_the_sweep(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """Already served after the room's other open messages: serving it twice is no news."""
    msg = await person_posts(platform, w, "dead turn", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    await age(platform, msg, past_the_lease(platform))
    assert await next_id(client, w) == msg
    assert await next_id(client, w) == msg
    assert (await status_of(client, w, msg))["status"] == "processing"


async def test_only_the_same_agent_asking_again_passes_its_head_over(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    mine = await person_posts(platform, w, "for echo", w.echo)
    assert await next_id(client, w) == mine
    helper = {"X-API-Key": w.helper_key}
    assert (await client.get(w.url("/messages/next"), headers=helper)).status_code == 204
    assert await next_id(client, w) == mine  # Echo's second ask: only now passed over
    assert (await status_of(client, w, mine))["status"] == "failed"


async def test_after_a_reconnect_the_agent_gets_its_own_open_turn_back_first(
    live_server: LiveServer,
) -> None:
    """A new connection (a restarted process, a dropped socket) is served its interrupted turn
    as usual: what its previous connection was served proves nothing about this one."""
    platform = live_server.platform
    w = await make_world(platform, await seed(platform))
    interrupted = await person_posts(platform, w, "one", w.echo)
    later = await person_posts(platform, w, "two", w.echo)
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as client:
        assert (await mark(client, w, interrupted, "processing")).status_code == 200
        assert await next_id(client, w) == interrupted  # then the process died
        async with phx(live_server.ws_url, w.seeded.agent_key, agent_id=w.echo) as socket:
            await socket.heartbeat()  # the new process is connected
            assert await next_id(client, w) == interrupted
            assert (await status_of(client, w, interrupted))["status"] == "processing"
            assert (await mark(client, w, interrupted, "processing")).status_code == 200
            assert (await mark(client, w, interrupted, "processed")).status_code == 200
            assert await next_id(client, w) == later
