"""The Redis bus: every node (the publisher too) delivers once; it survives a Redis restart."""

from __future__ import annotations

import asyncio

import pytest

from band_server.fanout.bus import Broadcast
from band_server.fanout.redis_bus import RedisBus, redact

from .real_services import RedisServer, free_port


class Inbox:
    """A hub stand-in that records what it is handed."""

    def __init__(self) -> None:
        self.got: list[Broadcast] = []
        self.arrived = asyncio.Event()

    async def deliver(self, b: Broadcast) -> None:
        self.got.append(b)
        self.arrived.set()

    async def wait_for(self, count: int) -> None:
        async with asyncio.timeout(5):
            while len(self.got) < count:
                self.arrived.clear()
                await self.arrived.wait()


def sample(n: int) -> Broadcast:
    return Broadcast(
        "chat_room:r1", "message_created", {"n": n, "text": "ünï"}, agents=frozenset({"a1"})
    )


async def test_every_node_and_the_publisher_get_each_broadcast_once(
    redis_server: RedisServer,
) -> None:
    one, two = RedisBus(redis_server.url), RedisBus(redis_server.url)
    inbox_one, inbox_two = Inbox(), Inbox()
    await one.start(inbox_one.deliver)
    await two.start(inbox_two.deliver)
    try:
        for n in range(3):
            await one.publish(sample(n))
        await inbox_one.wait_for(3)
        await inbox_two.wait_for(3)
        await asyncio.sleep(0.2)
        assert inbox_one.got == inbox_two.got == [sample(0), sample(1), sample(2)]
    finally:
        await one.stop()
        await two.stop()


async def test_resubscribes_after_redis_restarts(redis_server: RedisServer) -> None:
    bus = RedisBus(redis_server.url, backoff_max=0.5)
    inbox = Inbox()
    await bus.start(inbox.deliver)
    try:
        redis_server.stop()
        redis_server.start()  # same port, fresh server
        async with asyncio.timeout(10):
            while True:
                await bus.publish(sample(7))
                if inbox.got:
                    break
                await asyncio.sleep(0.1)
        assert inbox.got[0] == sample(7)
        assert bus.subscribed
    finally:
        await bus.stop()


async def test_a_failing_hub_does_not_stop_the_subscriber(redis_server: RedisServer) -> None:
    inbox = Inbox()

    async def flaky(b: Broadcast) -> None:
        if b.payload["n"] == 0:
            raise RuntimeError("boom")
        await inbox.deliver(b)

    bus = RedisBus(redis_server.url)
    await bus.start(flaky)
    try:
        await bus.publish(sample(0))
        await bus.publish(sample(1))
        await inbox.wait_for(1)
        assert inbox.got == [sample(1)]
    finally:
        await bus.stop()


async def test_start_fails_with_a_clear_message_when_redis_is_unreachable() -> None:
    bus = RedisBus(f"redis://:secret@127.0.0.1:{free_port()}/0")
    with pytest.raises(RuntimeError, match=r"cannot reach Redis at redis://:\*\*\*@127\.0\.0\.1"):
        await bus.start(Inbox().deliver)


def test_redact_hides_only_the_password() -> None:
    assert redact("redis://u:pw@h:6379/1") == "redis://u:***@h:6379/1"
    assert redact("redis://h:6379/0") == "redis://h:6379/0"
