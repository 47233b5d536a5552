"""The claim carried by the push (``claim_on_push``, our extension).

A post opens attempt 1 for a mentioned agent whose socket on this node asked for it and holds
the room's topic, when the agent has no live attempt in that room; the push shows it in
``metadata.delivery_status`` and, in ``working`` mode, people see the indicator start after
the message. Every other case is a plain delivery, as for band-sdk.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from socket_testkit import PhxClient, make_room, phx, refused, seed
from sqlalchemy import select

from band_server.services import unit
from band_server.services.deliveries.push_claims import Claimed, after_commit
from band_server.store.models import Delivery, DeliveryAttempt
from conftest import LiveServer, Seeded, make_agent

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def s(live_server: LiveServer) -> Seeded:
    return await seed(live_server.platform)


@pytest.fixture
async def person(live_server: LiveServer, s: Seeded) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"x-api-key": s.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield http


async def say(http: httpx.AsyncClient, room: str, text: str, *agents: str) -> str:
    body = {"message": {"content": text, "mentions": [{"id": a} for a in agents]}}
    r = await http.post(f"/api/v1/me/chats/{room}/messages", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["data"]["id"])


async def created(client: PhxClient) -> dict[str, Any]:
    """The next ``message_created`` push the socket gets (other pushes skipped)."""
    while True:
        frame = await client.recv()
        if frame[3] == "message_created":
            return dict(frame[4])


def mine(payload: dict[str, Any], agent_id: str) -> dict[str, Any] | None:
    status = (payload.get("metadata") or {}).get("delivery_status") or {}
    found = status.get(agent_id)
    return dict(found) if found is not None else None


async def stored(live: LiveServer, message_id: str, agent_id: str) -> tuple[str, int, int]:
    """The delivery's status and attempt number, and how many attempts it has."""
    async with live.platform.db.read() as session:
        d = (
            await session.scalars(
                select(Delivery).where(
                    Delivery.message_id == message_id, Delivery.agent_id == agent_id
                )
            )
        ).one()
        attempts = (
            await session.scalars(
                select(DeliveryAttempt).where(DeliveryAttempt.delivery_id == d.id)
            )
        ).all()
        return d.status, d.attempt_number, len(attempts)


async def test_working_mode_claims_with_the_push_and_starts_the_indicator(
    live_server: LiveServer, s: Seeded, person: httpx.AsyncClient
) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    topic = f"chat_room:{room}"
    async with (
        phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id, claim_on_push="working") as a,
        phx(live_server.ws_url, s.user_key) as watcher,
    ):
        await a.join(topic)
        await watcher.join(topic)
        message_id = await say(person, room, "hello", s.agent_id)
        push = await created(a)
        status = mine(push, s.agent_id)
        assert status is not None
        assert (status["status"], status["current_attempt"]) == ("processing", 1)
        assert [x["status"] for x in status["attempts"]] == ["processing"]
        assert await stored(live_server, message_id, s.agent_id) == ("processing", 1, 1)
        # The push's status is what a read shows (built from the rows written, not read back).
        listing = (await person.get(f"/api/v1/me/chats/{room}/messages")).json()["data"]
        assert mine(listing[-1], s.agent_id) == status
        # People get the message with its status, then the indicator starting.
        first, second = await watcher.recv(), await watcher.recv()
        assert (first[3], second[3]) == ("message_created", "agent_activity")
        assert mine(first[4], s.agent_id) == status
        assert second[4]["working"] is True
        assert live_server.platform.activity.is_working(room, s.agent_id)

        # The agent's turn needs no /processing: /processed settles attempt 1 and ends it.
        agent_http = {"x-api-key": s.agent_key}
        async with httpx.AsyncClient(base_url=live_server.url, headers=agent_http) as agent:
            r = await agent.post(f"/api/v1/agent/chats/{room}/messages/{message_id}/processed")
            assert r.status_code == 200, r.text
        assert await stored(live_server, message_id, s.agent_id) == ("processed", 1, 1)
        assert not live_server.platform.activity.is_working(room, s.agent_id)

    # What is stored is the message as posted: reads compute the status.
    listing = (await person.get(f"/api/v1/me/chats/{room}/messages")).json()["data"]
    assert mine(listing[-1], s.agent_id)["status"] == "processed"  # type: ignore[index]


async def test_claim_mode_leaves_the_indicator_alone(
    live_server: LiveServer, s: Seeded, person: httpx.AsyncClient
) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with phx(live_server.ws_url, s.agent_key, claim_on_push="claim") as a:
        await a.join(f"chat_room:{room}")
        message_id = await say(person, room, "hello", s.agent_id)
        assert mine(await created(a), s.agent_id)["status"] == "processing"  # type: ignore[index]
    assert await stored(live_server, message_id, s.agent_id) == ("processing", 1, 1)
    assert not live_server.platform.activity.is_working(room, s.agent_id)


async def test_without_the_parameter_or_the_topic_nothing_is_claimed(
    live_server: LiveServer, s: Seeded, person: httpx.AsyncClient
) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with phx(live_server.ws_url, s.agent_key) as a:  # band-sdk's socket
        await a.join(f"chat_room:{room}")
        message_id = await say(person, room, "plain", s.agent_id)
        push = await created(a)
        assert "delivery_status" not in push["metadata"]
    assert await stored(live_server, message_id, s.agent_id) == ("delivered", 0, 0)

    # Opted in, but not holding the room's topic: no push reaches it, so no claim.
    async with phx(live_server.ws_url, s.agent_key, claim_on_push="working") as a:
        await a.join(f"agent_control:{s.agent_id}")
        message_id = await say(person, room, "unheard", s.agent_id)
    assert await stored(live_server, message_id, s.agent_id) == ("delivered", 0, 0)


async def test_a_live_attempt_in_the_room_keeps_the_next_message_unclaimed(
    live_server: LiveServer, s: Seeded, person: httpx.AsyncClient
) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with phx(live_server.ws_url, s.agent_key, claim_on_push="working") as a:
        await a.join(f"chat_room:{room}")
        first = await say(person, room, "one", s.agent_id)
        await created(a)
        second = await say(person, room, "two", s.agent_id)
        assert mine(await created(a), s.agent_id) is None
        assert await stored(live_server, first, s.agent_id) == ("processing", 1, 1)
        assert await stored(live_server, second, s.agent_id) == ("delivered", 0, 0)
        # /next serves the live one first; the queued one is claimed over REST as before.
        agent_http = {"x-api-key": s.agent_key}
        async with httpx.AsyncClient(base_url=live_server.url, headers=agent_http) as agent:
            head = (await agent.get(f"/api/v1/agent/chats/{room}/messages/next")).json()
            assert head["data"]["id"] == first
            base = f"/api/v1/agent/chats/{room}/messages"
            assert (await agent.post(f"{base}/{first}/processing")).status_code == 200
            assert (await agent.post(f"{base}/{first}/processed")).status_code == 200
            assert (await agent.post(f"{base}/{second}/processing")).status_code == 200
        assert await stored(live_server, first, s.agent_id) == ("processed", 1, 1)
        assert await stored(live_server, second, s.agent_id) == ("processing", 1, 1)


async def test_only_the_opted_in_agent_of_a_message_is_claimed(
    live_server: LiveServer, s: Seeded, person: httpx.AsyncClient
) -> None:
    other_id, other_key, _ = await make_agent(live_server.platform, s.user_id, "Other")
    room = await make_room(live_server.platform, s.user_id, s.agent_id, other_id)
    topic = f"chat_room:{room}"
    async with (
        phx(live_server.ws_url, s.agent_key, claim_on_push="claim") as a,
        phx(live_server.ws_url, other_key) as b,
    ):
        await a.join(topic)
        await b.join(topic)
        message_id = await say(person, room, "both", s.agent_id, other_id)
        push_a, push_b = await created(a), await created(b)
        assert push_a == push_b  # one frame for every subscriber
        assert mine(push_a, s.agent_id)["status"] == "processing"  # type: ignore[index]
        other = mine(push_a, other_id)
        assert other is not None
        assert (other["status"], other["current_attempt"], other["attempts"]) == (
            "delivered",
            0,
            [],
        )
        listing = (await person.get(f"/api/v1/me/chats/{room}/messages")).json()["data"]
        assert listing[-1]["metadata"]["delivery_status"] == push_a["metadata"]["delivery_status"]
    assert await stored(live_server, message_id, other_id) == ("delivered", 0, 0)


async def test_an_agent_post_claims_for_the_agent_it_mentions(
    live_server: LiveServer, s: Seeded
) -> None:
    other_id, other_key, _ = await make_agent(live_server.platform, s.user_id, "Other")
    room = await make_room(live_server.platform, s.user_id, s.agent_id, other_id)
    async with phx(live_server.ws_url, other_key, claim_on_push="claim") as b:
        await b.join(f"chat_room:{room}")
        headers = {"x-api-key": s.agent_key}
        async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as agent:
            body = {"message": {"content": "over to you", "mentions": [{"id": other_id}]}}
            r = await agent.post(f"/api/v1/agent/chats/{room}/messages", json=body)
            assert r.status_code == 201, r.text
        push = await created(b)
        assert mine(push, other_id)["status"] == "processing"  # type: ignore[index]
    assert await stored(live_server, push["id"], other_id) == ("processing", 1, 1)


async def test_the_parameter_is_checked_and_a_person_socket_ignores_it(
    live_server: LiveServer, s: Seeded
) -> None:
    status, body = await refused(live_server.ws_url, s.agent_key, claim_on_push="always")
    assert status == 400
    assert body["error"]["code"] == "bad_request"
    assert "claim_on_push" in body["error"]["message"]
    async with phx(live_server.ws_url, s.user_key, claim_on_push="working") as p:
        assert (await p.heartbeat())[4]["status"] == "ok"


async def test_the_indicator_starts_only_once_the_post_commits(live_server: LiveServer) -> None:
    """A unit that rolls back runs none of its commit hooks: no indicator for a message that
    was never stored."""
    platform = live_server.platform
    taken = {"a1": Claimed("d1", "t1", working=True)}
    with pytest.raises(RuntimeError):
        async with unit.write(platform) as uow:
            after_commit(uow, platform, "r1", "m1", taken)
            raise RuntimeError("the post failed")
    assert not platform.activity.is_working("r1", "a1")
    async with unit.write(platform) as uow:
        after_commit(uow, platform, "r1", "m1", taken)
        assert not platform.activity.is_working("r1", "a1")
    assert platform.activity.is_working("r1", "a1")
    assert [b.event for b in uow.broadcasts] == ["agent_activity"]
