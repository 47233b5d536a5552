"""Shared pieces of the runtime tests: a person driving rooms over REST, test adapters, waits."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

from band.core import SimpleAdapter
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.platform.socket import SocketTimings
from band.runtime.agent import Agent
from band.runtime.config import AgentConfig, SessionConfig

FAST_SOCKET = SocketTimings(
    heartbeat_interval=1.0,
    heartbeat_timeout=3.0,
    backoff_base=0.05,
    backoff_cap=0.2,
    rapid_floors=(0.1, 0.2),
    initial_retry_delays=(0.1, 0.2),
)


def session(**overrides: Any) -> SessionConfig:
    values: dict[str, Any] = {"idle_resync_seconds": 30.0, "idle_resync_max_seconds": 60.0}
    values.update(overrides)
    return SessionConfig(**values)


@dataclass
class Person:
    """A person using the human REST surface with their own key."""

    http: httpx.AsyncClient
    user_id: str

    async def create_room(self, title: str, *members: str) -> str:
        r = await self.http.post("/api/v1/me/chats", json={"chat": {"title": title}})
        r.raise_for_status()
        room_id = str(r.json()["data"]["id"])
        for member in members:
            await self.add(room_id, member)
        return room_id

    async def add(self, room_id: str, member: str) -> None:
        body = {"participant": {"participant_id": member}}
        r = await self.http.post(f"/api/v1/me/chats/{room_id}/participants", json=body)
        r.raise_for_status()

    async def remove(self, room_id: str, member: str) -> None:
        r = await self.http.delete(f"/api/v1/me/chats/{room_id}/participants/{member}")
        r.raise_for_status()

    async def say(self, room_id: str, content: str, *mention_ids: str) -> str:
        body = {"message": {"content": content, "mentions": [{"id": m} for m in mention_ids]}}
        r = await self.http.post(f"/api/v1/me/chats/{room_id}/messages", json=body)
        r.raise_for_status()
        return str(r.json()["data"]["id"])

    async def listing(self, room_id: str) -> list[dict[str, Any]]:
        r = await self.http.get(
            f"/api/v1/me/chats/{room_id}/messages", params={"limit": 100, "sort_order": "asc"}
        )
        r.raise_for_status()
        return list(r.json()["data"])

    async def replies(self, room_id: str, sender_id: str) -> list[str]:
        return [
            m["content"]
            for m in await self.listing(room_id)
            if m["sender_id"] == sender_id and m["message_type"] == "text"
        ]

    async def events(self, room_id: str, message_type: str) -> list[dict[str, Any]]:
        return [m for m in await self.listing(room_id) if m["message_type"] == message_type]


async def until(check: Callable[[], Any], limit: float = 45.0, every: float = 0.05) -> Any:
    """Poll ``check`` (sync or async) until it returns something truthy."""

    async def loop() -> Any:
        while True:
            result = check()
            if asyncio.iscoroutine(result):
                result = await result
            if result:
                return result
            await asyncio.sleep(every)

    return await asyncio.wait_for(loop(), limit)


@dataclass
class Turn:
    msg: PlatformMessage
    history: Any
    participants_msg: str | None
    bootstrap: bool


class KeepRaw:
    """A history converter that hands the raw items through."""

    def convert(self, raw: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return raw


class EchoAdapter(SimpleAdapter[list[dict[str, Any]]]):
    """Replies ``echo: <content>`` to the sender; ``behaviour`` switches to failure modes."""

    def __init__(self, behaviour: str = "reply", delay: float = 0.0) -> None:
        super().__init__(history_converter=KeepRaw())
        self.behaviour = behaviour
        self.delay = delay
        self.turns: list[Turn] = []
        self.cleaned: list[str] = []
        self.started_with: tuple[str, str] | None = None
        self.gate: asyncio.Event | None = None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self.started_with = (agent_name, agent_description)

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        self.turns.append(Turn(msg, history, participants_msg, is_session_bootstrap))
        if self.gate is not None:
            await self.gate.wait()
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.behaviour == "raise":
            raise RuntimeError("boom secret")
        if self.behaviour == "read_only":
            await tools.get_participants()
            return
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])

    async def on_cleanup(self, room_id: str) -> None:
        self.cleaned.append(room_id)


def make_agent(live: Any, agent_id: str, key: str, adapter: Any, **kw: Any) -> Agent:
    config = kw.pop("config", AgentConfig(single_instance=False))
    return Agent.create(
        adapter=adapter,
        agent_id=agent_id,
        api_key=key,
        ws_url=live.ws_url,
        rest_url=live.url,
        config=config,
        session_config=kw.pop("session_config", session()),
        socket_timings=kw.pop("socket_timings", FAST_SOCKET),
        **kw,
    )


async def delivery_status(person: Person, room_id: str, message_id: str, agent_id: str) -> str:
    """The agent's delivery status of one message as the person's listing shows it."""
    for m in await person.listing(room_id):
        if m["id"] == message_id:
            status = (m.get("metadata") or {}).get("delivery_status") or {}
            return str((status.get(agent_id) or {}).get("status"))
    return "missing"


async def until_status(
    person: Person, room_id: str, message_id: str, agent_id: str, wanted: str
) -> None:
    async def check() -> bool:
        return await delivery_status(person, room_id, message_id, agent_id) == wanted

    await until(check)


async def control(live_server: Any, agent_id: str, room_id: str | None, mode: str) -> None:
    """Push an ``agent.control`` as the platform does (room-scoped, or agent-wide)."""
    from band_server.fanout.bus import Broadcast

    payload = {
        "mode": mode,
        "scope": "room" if room_id else "agent",
        "agent_id": agent_id,
        "execution_id": None,
        "room_id": room_id,
        "correlation_id": str(uuid.uuid4()),
    }
    topic = f"agent_control:{agent_id}"
    await live_server.platform.hub.deliver(Broadcast(topic, "agent.control", payload))
