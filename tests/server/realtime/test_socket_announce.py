"""An agent socket's announcement (its channel followed, then its supersede published) runs
beside the session; when the socket ends it is stopped, and the channel is forgotten exactly
when it was followed, whatever point it had reached and even when the socket's own task is
being cancelled."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from band_server.realtime.socket import _Announce


class _Bus:
    def __init__(self, *, follow_waits: bool = False, publish_waits: bool = False) -> None:
        self.follow_waits = follow_waits
        self.publish_waits = publish_waits
        self.followed: list[str] = []
        self.forgotten: list[str] = []
        self.published: list[Any] = []

    async def follow(self, topic: str) -> None:
        if self.follow_waits:
            await asyncio.Event().wait()
        self.followed.append(topic)

    async def publish(self, broadcast: Any) -> None:
        if self.publish_waits:
            await asyncio.Event().wait()
        self.published.append(broadcast)

    def forget(self, topic: str) -> None:
        self.forgotten.append(topic)


def _announce(bus: _Bus) -> _Announce:
    conn = SimpleNamespace(id="conn-1", label="agent a1")
    return _Announce(SimpleNamespace(bus=bus), "a1", conn)


async def test_followed_then_published_then_forgotten_at_the_end() -> None:
    bus = _Bus()
    announce = _announce(bus)
    await asyncio.sleep(0)
    assert bus.followed == ["agent_control:a1"]
    [supersede] = bus.published
    assert supersede.event == "supersede" and supersede.exclude_conn == "conn-1"
    await announce.end()
    assert bus.forgotten == ["agent_control:a1"]


async def test_a_socket_that_ends_before_its_channel_is_followed_forgets_nothing() -> None:
    bus = _Bus(follow_waits=True)
    announce = _announce(bus)
    await asyncio.sleep(0)
    await announce.end()
    assert bus.followed == [] and bus.forgotten == [] and bus.published == []


async def test_a_socket_that_ends_while_its_supersede_is_sent_forgets_its_channel() -> None:
    bus = _Bus(publish_waits=True)
    announce = _announce(bus)
    await asyncio.sleep(0)
    await announce.end()
    assert bus.followed == bus.forgotten == ["agent_control:a1"]


async def test_the_sockets_own_cancellation_goes_on_and_the_channel_is_forgotten() -> None:
    bus = _Bus(publish_waits=True)
    announce = _announce(bus)
    await asyncio.sleep(0)
    ending = asyncio.ensure_future(announce.end())
    await asyncio.sleep(0)
    ending.cancel()  # the socket's task is cancelled while it waits for the announcement
    with pytest.raises(asyncio.CancelledError):
        await ending
    assert bus.forgotten == ["agent_control:a1"]
