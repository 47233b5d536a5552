"""Two platform nodes on one PostgreSQL database and one Redis behave like one platform."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from band_server.fanout.redis_bus import CHANNEL
from band_server.fanout.resp import open_connection
from band_server.services.identity import accounts

from .nodes import Node
from .real_services import RedisServer

TIMEOUT = 5.0


class Phx:
    """The smallest Phoenix v2 client: join a topic, read the next push of an event."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.ref = 0

    async def join(self, topic: str) -> None:
        self.ref += 1
        ref = str(self.ref)
        await self.ws.send(json.dumps([ref, ref, topic, "phx_join", {}]))
        reply = await self.next_event("phx_reply")
        assert reply[1] == ref and reply[4]["status"] == "ok", reply

    async def next_event(self, event: str) -> list[Any]:
        """The next frame with this event name; other frames are skipped."""
        while True:
            frame = json.loads(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
            if frame[3] == event:
                return list(frame)


@asynccontextmanager
async def socket(node: Node, key: str, **query: str) -> AsyncIterator[Phx]:
    url = f"{node.ws_url}?{urlencode({'vsn': '2.0.0', **query})}"
    async with connect(url, additional_headers={"x-api-key": key}, proxy=None) as ws:
        yield Phx(ws)


@dataclass
class World:
    user_key: str
    agent_id: str
    agent_key: str
    agent_handle: str
    room_id: str


async def make_world(a: Node) -> World:
    """Alice (made through the services), her agent and a room (made over REST on node A)."""
    async with a.platform.db.write() as session:
        _, user_key = await accounts.create_user(session, name="Alice", handle="alice")
    h = {"X-API-Key": user_key}
    async with httpx.AsyncClient(base_url=a.url, headers=h) as c:
        r = await c.post(
            "/api/v1/me/agents/register",
            json={"agent": {"name": "Echo", "description": "Echoes what it hears"}},
        )
        assert r.status_code == 201, r.text
        agent, key = r.json()["data"]["agent"], r.json()["data"]["credentials"]["api_key"]
        room = (await c.post("/api/v1/me/chats", json={"chat": {"title": "Scale"}})).json()
        room_id = room["data"]["id"]
        r = await c.post(
            f"/api/v1/me/chats/{room_id}/participants",
            json={"participant": {"participant_id": agent["id"]}},
        )
        assert r.status_code == 201, r.text
    return World(user_key, agent["id"], key, agent["handle"], room_id)


async def post_on(node: Node, w: World, text: str) -> httpx.Response:
    """Alice posts ``@agent text`` in the room through ``node``; the 201 answer."""
    async with httpx.AsyncClient(base_url=node.url) as c:
        r = await c.post(
            f"/api/v1/me/chats/{w.room_id}/messages",
            json={"message": {"content": f"@{w.agent_handle} {text}"}},
            headers={"X-API-Key": w.user_key},
        )
    assert r.status_code == 201, r.text
    return r


async def test_message_posted_on_a_reaches_agent_socket_on_b(two_nodes: tuple[Node, Node]) -> None:
    a, b = two_nodes
    w = await make_world(a)
    topic = f"chat_room:{w.room_id}"
    async with socket(b, w.agent_key, agent_id=w.agent_id) as agent:
        await agent.join(topic)
        r = await post_on(a, w, "hello from A")
        push = await agent.next_event("message_created")
        assert push[2] == topic
        assert push[4]["id"] == r.json()["data"]["id"]
        assert "hello from A" in push[4]["content"]
        # Exactly once: the broadcast went through Redis once, not also straight to the hub.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(agent.ws.recv(), 0.5)


async def test_agent_socket_on_b_supersedes_its_socket_on_a(two_nodes: tuple[Node, Node]) -> None:
    a, b = two_nodes
    w = await make_world(a)
    control = f"agent_control:{w.agent_id}"
    async with socket(a, w.agent_key, agent_id=w.agent_id) as old:
        await old.join(control)
        async with socket(b, w.agent_key, agent_id=w.agent_id) as new:
            push = await old.next_event("supersede")
            assert push[2] == control
            assert push[4]["reason"] == "superseded" and push[4]["retryable"] is False
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(old.ws.recv(), TIMEOUT)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            # The new socket on B is live and was not told to go away.
            await new.join(control)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(new.ws.recv(), 0.3)
    assert not a.platform.hub.is_online(w.agent_id)


async def _closed_within(phx: Phx, seconds: float) -> int | None:
    """The close code the server sent within ``seconds``, or None while the socket is open."""
    try:
        while True:
            await asyncio.wait_for(phx.ws.recv(), seconds)
    except TimeoutError:
        return None
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else -1


async def _following(node: Node, channel: str, expected: bool) -> None:
    """Wait until ``node``'s bus follows ``channel`` (or no longer does)."""
    subscription = node.platform.bus._subscription  # type: ignore[attr-defined]
    deadline = time.monotonic() + TIMEOUT
    while (channel in subscription.channels) is not expected:
        assert time.monotonic() < deadline, f"following {channel}: not {expected}"
        await asyncio.sleep(0.02)


async def test_a_socket_that_joined_nothing_is_superseded_from_the_other_node(
    two_nodes: tuple[Node, Node],
) -> None:
    """The supersede goes on the agent's channel, which node A follows from the socket's
    open, not from its first join: a socket that never joined is closed too."""
    a, b = two_nodes
    w = await make_world(a)
    own = f"{CHANNEL}:principal:{w.agent_id}"
    async with socket(a, w.agent_key, agent_id=w.agent_id) as old:
        await _following(a, own, True)
        async with socket(b, w.agent_key, agent_id=w.agent_id) as new:
            assert await _closed_within(old, TIMEOUT) == 1008
            assert await _closed_within(new, 0.3) is None
        await _following(a, own, False)  # its socket ended


async def test_two_sockets_of_an_agent_opened_at_once_on_two_nodes_leave_at_most_one(
    two_nodes: tuple[Node, Node],
) -> None:
    """Both nodes follow the agent's channel before publishing their supersede: the socket
    whose supersede Redis takes first is closed by the other's, whatever the order."""
    a, b = two_nodes
    w = await make_world(a)

    async def open_on(node: Node) -> ClientConnection:
        url = f"{node.ws_url}?{urlencode({'vsn': '2.0.0', 'agent_id': w.agent_id})}"
        return await connect(url, additional_headers={"x-api-key": w.agent_key}, proxy=None)

    for _ in range(8):
        pair = await asyncio.gather(open_on(a), open_on(b))
        try:
            codes = await asyncio.gather(*(_closed_within(Phx(ws), 1.0) for ws in pair))
            assert codes.count(None) <= 1, codes
            assert all(code in (None, 1008) for code in codes), codes
        finally:
            for ws in pair:
                await ws.close()


async def test_a_join_on_b_is_answered_once_b_hears_the_room(
    two_nodes: tuple[Node, Node], redis_server: RedisServer
) -> None:
    """The room's broadcasts go on its own channel: node B's join reply waits for Redis to
    subscribe B to it (here Redis holds every command for a while), so a message posted on A
    right after the reply reaches the socket."""
    a, b = two_nodes
    w = await make_world(a)
    topic = f"chat_room:{w.room_id}"
    async with socket(b, w.agent_key, agent_id=w.agent_id) as agent:
        admin = await open_connection(redis_server.url)
        try:
            await admin.command("CLIENT", "PAUSE", 800, "ALL")
            started = time.monotonic()
            await agent.join(topic)
            assert time.monotonic() - started >= 0.6  # the reply waited for the SUBSCRIBE
            channel = f"{CHANNEL}:{topic}"
            assert (await admin.command("PUBSUB", "NUMSUB", channel))[1] == 1
        finally:
            admin.close()
        r = await post_on(a, w, "right after the join")
        push = await agent.next_event("message_created")
        assert push[4]["id"] == r.json()["data"]["id"]
