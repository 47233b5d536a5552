"""band.platform.subscriptions: a room is both its topics or neither, and a refusal is retried."""

from __future__ import annotations

import asyncio

import pytest

from band.core.exceptions import BandConnectionError
from band.platform import subscriptions
from band.platform.socket import JoinError
from band.platform.subscriptions import SubscriptionManager


class Topics:
    """A socket stand-in that refuses the topics in ``refuse`` (each refusal once)."""

    def __init__(self, *refuse: str) -> None:
        self.refuse = list(refuse)
        self.joined: set[str] = set()
        self.log: list[str] = []

    async def join(self, topic: str) -> object:
        if topic in self.refuse:
            self.refuse.remove(topic)
            self.log.append(f"refused {topic}")
            raise JoinError(topic, "unauthorized")
        self.joined.add(topic)
        self.log.append(f"join {topic}")
        return {}

    async def leave(self, topic: str) -> None:
        self.joined.discard(topic)
        self.log.append(f"leave {topic}")

    def is_joined(self, topic: str) -> bool:
        return topic in self.joined


async def test_a_half_joined_room_is_left_and_joined_again_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(subscriptions, "ROOM_JOIN_RETRY_DELAYS", (0.01, 0.01))
    ws = Topics("room_participants:r1")
    manager = SubscriptionManager(lambda: ws)
    assert await manager.subscribe_room(ws, "r1") is False
    assert ws.log[:3] == ["join chat_room:r1", "refused room_participants:r1", "leave chat_room:r1"]
    assert manager.is_room_subscribed("r1")  # still wanted: retried in the background
    for _ in range(100):
        if ws.is_joined("room_participants:r1"):
            break
        await asyncio.sleep(0.01)
    assert ws.joined == {"chat_room:r1", "room_participants:r1"}
    await manager.unsubscribe_room(ws, "r1")
    assert ws.joined == set() and manager.rooms == frozenset()


async def test_a_room_given_up_stops_being_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(subscriptions, "ROOM_JOIN_RETRY_DELAYS", (0.01, 0.01))
    ws = Topics("chat_room:r1", "chat_room:r1", "chat_room:r1")
    manager = SubscriptionManager(lambda: ws)
    assert await manager.subscribe_room(ws, "r1") is False
    await asyncio.sleep(0.1)
    assert ws.log == ["refused chat_room:r1"] * 3 and ws.joined == set()


async def test_rejoining_after_a_reconnect_only_touches_rooms_still_there() -> None:
    ws = Topics()
    manager = SubscriptionManager(lambda: ws)
    for room in ("r1", "r2"):
        await manager.subscribe_room(ws, room)
    ws.joined.clear()  # the socket reconnected: every topic is gone
    await manager.rejoin_rooms(ws, {"r1"})
    assert ws.joined == {"chat_room:r1", "room_participants:r1"}


async def test_contacts_refused_is_a_connection_error_and_leaving_unjoined_is_a_no_op() -> None:
    ws = Topics("agent_contacts:a1")
    manager = SubscriptionManager(lambda: ws)
    await manager.unsubscribe_agent_contacts(ws, "a1")
    with pytest.raises(BandConnectionError):
        await manager.subscribe_agent_contacts(ws, "a1")
    await manager.subscribe_agent_contacts(ws, "a1")
    await manager.unsubscribe_agent_contacts(ws, "a1")
    assert ws.log[-1] == "leave agent_contacts:a1"
