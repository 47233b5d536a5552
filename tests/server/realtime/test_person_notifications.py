"""``user_notifications:<person>``: a person's own topic, joined by the web app on every page.
Only its person may join it; a text mentioning them (an agent's: a reply), or any text in a
direct room of theirs, is pushed there (never to the sender, never to anyone else, never a
plain room message)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from socket_testkit import PhxClient, make_room, phx, seed

from conftest import LiveServer, Seeded, make_user

OK = {"status": "ok", "response": {}}
REFUSED = {"status": "error", "response": {"reason": "unauthorized"}}


@pytest.fixture
async def s(live_server: LiveServer) -> Seeded:
    return await seed(live_server.platform)


async def say(url: str, key: str, room: str, content: str, *mentions: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=10) as http:
        sent = await http.post(
            f"/api/v1/me/chats/{room}/messages",
            headers={"X-API-Key": key},
            json={"message": {"content": content, "mentions": [{"id": m} for m in mentions]}},
        )
        assert sent.status_code == 201, sent.text
        return str(sent.json()["data"]["id"])


async def notification(c: PhxClient) -> dict[str, Any]:
    frame = await c.recv()
    assert frame[3] == "notification", frame
    payload: dict[str, Any] = frame[4]
    return payload


async def test_only_the_person_joins_their_notifications(
    live_server: LiveServer, s: Seeded
) -> None:
    bob_id, _ = await make_user(live_server.platform, "bob")
    async with phx(live_server.ws_url, s.user_key) as c:
        assert (await c.join(f"user_notifications:{s.user_id}"))[4] == OK
        assert (await c.join(f"user_notifications:{bob_id}"))[4] == REFUSED
    async with phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as agent:
        assert (await agent.join(f"user_notifications:{s.user_id}"))[4] == REFUSED
        assert (await agent.join(f"user_notifications:{s.agent_id}"))[4] == REFUSED


async def test_mentions_and_direct_texts_reach_the_persons_topic(
    live_server: LiveServer, s: Seeded
) -> None:
    url = live_server.url
    bob_id, bob_key = await make_user(live_server.platform, "bob")
    carol_id, carol_key = await make_user(live_server.platform, "carol")
    group = await make_room(live_server.platform, s.user_id, bob_id, carol_id)
    direct = await make_room(live_server.platform, bob_id, s.user_id)
    async with (
        phx(live_server.ws_url, s.user_key) as me,
        phx(live_server.ws_url, carol_key) as carol,
    ):
        await me.join(f"user_notifications:{s.user_id}")
        await carol.join(f"user_notifications:{carol_id}")

        await say(url, bob_key, group, "Lunch anyone?")  # no mention: nobody's topic
        assert await me.silent() and await carol.silent()

        sent = await say(url, bob_key, group, f"@[[{s.user_id}]] can you review?", s.user_id)
        got = await notification(me)
        assert got["reason"] == "mention"
        assert got["message"]["id"] == sent and got["message"]["chat_room_id"] == group
        assert got["message"]["sender_name"] == "Bob"
        assert await carol.silent()  # carol is in the room but was not mentioned

        sent = await say(url, bob_key, direct, "Just between us.")
        got = await notification(me)
        assert (got["reason"], got["message"]["id"]) == ("direct", sent)

        agent_room = await make_room(live_server.platform, s.user_id, s.agent_id, bob_id)
        async with httpx.AsyncClient(base_url=url, timeout=10) as http:
            answered = await http.post(
                f"/api/v1/agent/chats/{agent_room}/messages",
                headers={"X-API-Key": s.agent_key},
                json={"message": {"content": "Done.", "mentions": [{"id": s.user_id}]}},
            )
        assert answered.status_code == 201, answered.text
        got = await notification(me)
        assert (got["reason"], got["message"]["sender_type"]) == ("reply", "Agent")

        await say(url, s.user_key, direct, "Sure.")  # my own text never notifies me
        await say(url, s.user_key, group, f"@[[{s.user_id}]] thanks", s.user_id)
        assert await me.silent()
