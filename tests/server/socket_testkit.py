"""A tiny Phoenix v2 client for socket tests, plus room set-up through the services."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus

from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.services.rooms import membership as rooms
from conftest import Seeded, make_agent, make_user

Frame = list[Any]
TIMEOUT = 3.0


class PhxClient:
    """Sends frames with its own ref counter and reads frames with a timeout."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self._ref = 0
        self.join_refs: dict[str, str] = {}

    def next_ref(self) -> str:
        self._ref += 1
        return str(self._ref)

    async def send_raw(self, text: str) -> None:
        await self.ws.send(text)

    async def send(self, frame: Frame) -> None:
        await self.ws.send(json.dumps(frame))

    async def recv(self, wait: float = TIMEOUT) -> Frame:
        raw = await asyncio.wait_for(self.ws.recv(), wait)
        frame = json.loads(raw)
        assert isinstance(frame, list) and len(frame) == 5, frame
        return frame

    async def reply_to(self, ref: str, wait: float = TIMEOUT) -> Frame:
        """The next ``phx_reply`` for ``ref`` (other frames in between are skipped)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            frame = await self.recv(max(0.01, deadline - loop.time()))
            if frame[3] == "phx_reply" and frame[1] == ref:
                return frame

    async def join(self, topic: str) -> Frame:
        ref = self.next_ref()
        await self.send([ref, ref, topic, "phx_join", {}])
        reply = await self.reply_to(ref)
        if reply[4]["status"] == "ok":
            self.join_refs[topic] = ref
        return reply

    async def leave(self, topic: str) -> Frame:
        ref = self.next_ref()
        await self.send([self.join_refs.get(topic), ref, topic, "phx_leave", {}])
        return await self.reply_to(ref)

    async def heartbeat(self) -> Frame:
        ref = self.next_ref()
        await self.send([None, ref, "phoenix", "heartbeat", {}])
        return await self.reply_to(ref)

    async def silent(self, within: float = 0.3) -> bool:
        """True when no frame arrives for ``within`` seconds."""
        try:
            frame = await self.recv(within)
        except TimeoutError:
            return True
        raise AssertionError(f"unexpected frame {frame}")


def socket_url(ws_url: str, **query: str) -> str:
    params = {"vsn": "2.0.0", **query}
    return f"{ws_url}?{urlencode(params)}"


@asynccontextmanager
async def phx(ws_url: str, key: str | None, **query: str) -> AsyncIterator[PhxClient]:
    """Open a socket with ``x-api-key`` (like the official client) and the given query."""
    headers = {"x-api-key": key} if key else {}
    async with connect(
        socket_url(ws_url, **query), additional_headers=headers, open_timeout=TIMEOUT, proxy=None
    ) as ws:
        yield PhxClient(ws)


async def refused(ws_url: str, key: str | None, **query: str) -> tuple[int, dict[str, Any]]:
    """Attempt an upgrade that must be refused; return the HTTP status and the JSON body."""
    try:
        async with phx(ws_url, key, **query):
            pass
    except InvalidStatus as exc:
        return exc.response.status_code, json.loads(exc.response.body or b"{}")
    raise AssertionError("the upgrade was accepted")


async def seed(platform: Platform) -> Seeded:
    """Alice, her agent Echo, and their keys (the live server's twin of ``seeded``)."""
    user_id, user_key = await make_user(platform, "alice", "Alice")
    agent_id, agent_key, handle = await make_agent(platform, user_id, "Echo")
    return Seeded(user_id, user_key, "alice", agent_id, agent_key, handle)


async def make_room(platform: Platform, owner_id: str, *member_ids: str) -> str:
    """A room owned by the person ``owner_id`` with the given members (no broadcasts sent)."""
    async with platform.db.write() as session:
        owner = accounts.user_principal(await accounts.get_user(session, owner_id))
        room, _ = await rooms.create_room(session, owner, title="Test room", task_id=None)
        for member in member_ids:
            await rooms.add_participant(session, owner, room, member)
        return room.id
