"""A head left from before an agent's reconnect, which the agent went past, is passed over by
its next ``/next`` (issue 27).

band-sdk 6.0.1 gives up a message for the life of its process ("exceeded max retries": a turn
of it failed while its node was down, and it sees it again after the reconnect) and then skips
it with no write; its drain stops when ``/next`` answers the same id twice. So when an agent,
after its socket (re)connected, asks ``/next`` again in a room and the head it was served there
is left from before that connection and untouched since (no claim, mark or sign of life), the
platform records that head's attempt ``failed`` and answers with the room's next open message;
the lease no longer has to run out first. A head the agent claims, one of the current
connection, and one served again after yet another reconnect are never passed over.

The agent's connection is a real socket on a served platform; its REST calls go to the same
node.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

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
from socket_testkit import PhxClient, phx, seed

from band_server.context import Platform
from band_server.services.deliveries.leases import LeaseClock
from band_server.services.deliveries.marks import PASSED_OVER_ERROR
from conftest import LiveServer


@dataclass
class Live:
    server: LiveServer
    w: World
    client: httpx.AsyncClient

    @property
    def platform(self) -> Platform:
        return self.server.platform

    @asynccontextmanager
    async def connected(self) -> AsyncIterator[PhxClient]:
        """Echo's socket: a new connection (a restarted process, a reconnect after a cut)."""
        w = self.w
        async with phx(self.server.ws_url, w.seeded.agent_key, agent_id=w.echo) as socket:
            await socket.heartbeat()
            yield socket


@pytest.fixture
async def live(live_server: LiveServer) -> AsyncIterator[Live]:
    w = await make_world(live_server.platform, await seed(live_server.platform))
    async with httpx.AsyncClient(base_url=live_server.url, timeout=10) as client:
        yield Live(live_server, w, client)


def attempts(status: dict[str, object]) -> list[tuple[object, object]]:
    found = status["attempts"]
    assert isinstance(found, list)
    return [(a["status"], a.get("error")) for a in found]


async def test_a_claimed_head_left_from_before_the_reconnect_and_asked_past_is_passed_over(
    live: Live,
) -> None:
    """The turn that ran when the node died: claimed, failed in the SDK, its ``/failed`` lost.
    After the reconnect the SDK is served it, skips it, and asks again."""
    platform, w, client = live.platform, live.w, live.client
    given_up = await person_posts(platform, w, "one", w.echo)
    waiting = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, given_up, "processing")).status_code == 200
    async with live.connected():
        assert await next_id(client, w) == given_up  # its own open turn first (crash recovery)
        with recording(platform) as rec:
            assert await next_id(client, w) == waiting  # asked again, untouched: passed over
        status = await status_of(client, w, given_up)
        assert status["status"] == "failed"
        assert attempts(status) == [("failed", PASSED_OVER_ERROR)]
        [updated] = rec.events("message_updated")  # people see it, as any mark
        assert updated.payload["id"] == given_up and updated.agents == frozenset()

        assert (await mark(client, w, waiting, "processing")).status_code == 200
        assert (await mark(client, w, waiting, "processed")).status_code == 200
        assert await next_id(client, w) == given_up  # served again once nothing else is open
        assert await next_id(client, w) == given_up  # and left as it is: failed already
        assert attempts(await status_of(client, w, given_up)) == [("failed", PASSED_OVER_ERROR)]


async def test_a_head_never_claimed_gets_one_failed_attempt_when_passed_over(live: Live) -> None:
    platform, w, client = live.platform, live.w, live.client
    skipped = await person_posts(platform, w, "one", w.echo)
    waiting = await person_posts(platform, w, "two", w.echo)
    async with live.connected():
        assert await next_id(client, w) == skipped
        assert await next_id(client, w) == waiting
        status = await status_of(client, w, skipped)
        assert status["status"] == "failed" and status["current_attempt"] == 1
        assert attempts(status) == [("failed", PASSED_OVER_ERROR)]
        # The agent may still run it: a claim opens attempt 2.
        r = await mark(client, w, skipped, "processing")
        assert r.json()["data"]["attempt_number"] == 2


@pytest.mark.parametrize("touch", ["processing", "activity", "failed"])
async def test_a_head_the_agent_touched_since_it_was_served_is_served_as_usual(
    live: Live, touch: str
) -> None:
    platform, w, client = live.platform, live.w, live.client
    head = await person_posts(platform, w, "one", w.echo)
    other = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, head, "processing")).status_code == 200
    async with live.connected():
        assert await next_id(client, w) == head
        if touch == "processing":  # claimed again: the crash-recovered turn runs
            assert (await mark(client, w, head, "processing")).status_code == 200
            assert await next_id(client, w) == head
            assert (await status_of(client, w, head))["status"] == "processing"
        elif touch == "activity":  # a sign of life of its turn (the lease clock moves)
            platform.lease_clock = LeaseClock(every=0.0)  # written, not thinned
            r = await client.post(w.url("/activity"), json={"working": True}, headers=w.echo_key)
            assert r.status_code == 200
            assert await next_id(client, w) == head
            assert (await status_of(client, w, head))["status"] == "processing"
        else:  # the agent failed it itself: served after the others, with its own error
            r = await mark(client, w, head, "failed", json={"error": "boom"})
            assert r.status_code == 200
            assert await next_id(client, w) == other
            assert attempts(await status_of(client, w, head)) == [("failed", "boom")]


async def test_a_head_of_the_current_connection_is_not_passed_over(live: Live) -> None:
    """A one-shot runtime peeks at ``/next`` before it claims another message: a message that
    arrived on this connection is served as usual, however often it is asked for."""
    platform, w, client = live.platform, live.w, live.client
    async with live.connected():
        head = await person_posts(platform, w, "one", w.echo)
        await person_posts(platform, w, "two", w.echo)
        for _ in range(3):
            assert await next_id(client, w) == head
        assert (await status_of(client, w, head))["status"] == "delivered"


async def test_after_another_reconnect_the_agent_gets_its_own_open_turn_back_first(
    live: Live,
) -> None:
    """Served on one connection, asked again on the next (the process was restarted in
    between): the new connection proves nothing was skipped, so crash recovery runs it."""
    platform, w, client = live.platform, live.w, live.client
    interrupted = await person_posts(platform, w, "one", w.echo)
    later = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, interrupted, "processing")).status_code == 200
    async with live.connected():
        assert await next_id(client, w) == interrupted
    async with live.connected():  # the process died and a new one connected
        assert await next_id(client, w) == interrupted
        assert (await status_of(client, w, interrupted))["status"] == "processing"
        assert (await mark(client, w, interrupted, "processing")).status_code == 200
        assert (await mark(client, w, interrupted, "processed")).status_code == 200
        assert await next_id(client, w) == later


async def test_without_a_socket_on_the_node_the_lease_stays_the_last_resort(live: Live) -> None:
    platform, w, client = live.platform, live.w, live.client
    head = await person_posts(platform, w, "one", w.echo)
    await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, head, "processing")).status_code == 200
    assert await next_id(client, w) == head
    assert await next_id(client, w) == head
    assert (await status_of(client, w, head))["status"] == "processing"


async def test_a_late_processed_settles_a_passed_over_attempt(live: Live) -> None:
    platform, w, client = live.platform, live.w, live.client
    msg = await person_posts(platform, w, "slow ack", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    async with live.connected():
        assert await next_id(client, w) == msg
        assert await next_id(client, w) == msg  # the only open one: passed over, served last
        assert (await status_of(client, w, msg))["status"] == "failed"
        r = await mark(client, w, msg, "processed")  # its ack arrives after all
        assert r.status_code == 200 and r.json()["data"]["status"] == "processed"
        assert attempts(await status_of(client, w, msg)) == [("success", None)]
        assert await next_id(client, w) is None


async def test_an_attempt_past_its_lease_is_left_to_the_sweep(live: Live) -> None:
    """Already served after the room's other open messages: serving it twice is no news."""
    platform, w, client = live.platform, live.w, live.client
    msg = await person_posts(platform, w, "dead turn", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    await age(platform, msg, past_the_lease(platform))
    async with live.connected():
        assert await next_id(client, w) == msg
        assert await next_id(client, w) == msg
        assert (await status_of(client, w, msg))["status"] == "processing"


async def test_a_left_over_head_left_unclaimed_is_passed_over_and_the_room_resumed(
    live: Live,
) -> None:
    """band-sdk held the head failed already (a turn of it failed twice while its node was
    down): after the reconnect it asks ``/next`` once, skips the head and stops. The grace runs
    out: the head is recorded failed and the agent is told to resume the room (``play``), so it
    drains the room's other open messages."""
    platform, w, client = live.platform, live.w, live.client
    platform.served_heads.grace = 0.3
    given_up = await person_posts(platform, w, "one", w.echo)
    waiting = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, given_up, "processing")).status_code == 200
    async with live.connected() as socket:
        control = f"agent_control:{w.echo}"
        assert (await socket.join(control))[4]["status"] == "ok"
        assert await next_id(client, w) == given_up
        frame = await socket.recv(wait=5)
        assert frame[2:4] == [control, "agent.control"]
        assert frame[4] == {
            "mode": "play",
            "scope": "room",
            "agent_id": w.echo,
            "execution_id": None,
            "room_id": w.room_id,
            "correlation_id": frame[4]["correlation_id"],
        }
        assert attempts(await status_of(client, w, given_up)) == [("failed", PASSED_OVER_ERROR)]
        assert await next_id(client, w) == waiting


async def test_a_left_over_head_claimed_within_the_grace_runs_as_usual(live: Live) -> None:
    platform, w, client = live.platform, live.w, live.client
    platform.served_heads.grace = 0.3
    interrupted = await person_posts(platform, w, "one", w.echo)
    assert (await mark(client, w, interrupted, "processing")).status_code == 200
    async with live.connected() as socket:
        assert (await socket.join(f"agent_control:{w.echo}"))[4]["status"] == "ok"
        assert await next_id(client, w) == interrupted
        assert (await mark(client, w, interrupted, "processing")).status_code == 200
        assert await socket.silent(within=1.0)  # no play: the agent is at it
        assert (await status_of(client, w, interrupted))["status"] == "processing"
