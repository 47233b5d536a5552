"""The Redis bus: every node (the publisher too) delivers once; it survives a Redis restart."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest

from band_server.fanout.bus import Broadcast, gap_since, gap_until
from band_server.fanout.redis_bus import Publish, RedisBus
from band_server.fanout.redis_url import redact
from band_server.fanout.resp import RespConnection, open_connection

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

    async def wait_gap_note(self, within: float = 10) -> None:
        async with asyncio.timeout(within):
            while not any(gap_since(b) is not None for b in self.got):
                self.arrived.clear()
                await self.arrived.wait()


TOPIC = "chat_room:r1"


async def start_following(bus: RedisBus, deliver: Callable[[Broadcast], Awaitable[None]]) -> None:
    """Start the bus, following the samples' topic (as a node does once a socket joins it)."""
    await bus.start(deliver)
    await bus.follow(TOPIC)


def sample(n: int) -> Broadcast:
    return Broadcast(TOPIC, "message_created", {"n": n, "text": "ünï"}, agents=frozenset({"a1"}))


async def test_every_node_and_the_publisher_get_each_broadcast_once(
    redis_server: RedisServer,
) -> None:
    one, two = RedisBus(redis_server.url), RedisBus(redis_server.url)
    inbox_one, inbox_two = Inbox(), Inbox()
    await start_following(one, inbox_one.deliver)
    await start_following(two, inbox_two.deliver)
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
    bus, publisher = RedisBus(redis_server.url, backoff_max=0.5), RedisBus(redis_server.url)
    inbox = Inbox()
    await start_following(bus, inbox.deliver)
    await start_following(publisher, Inbox().deliver)
    try:
        redis_server.stop()
        redis_server.start()  # same port, fresh server
        async with asyncio.timeout(10):
            while True:  # what the other node publishes reaches this one again
                await publisher.publish(sample(7))
                if any(gap_since(b) is None for b in inbox.got):
                    break
                await asyncio.sleep(0.1)
        assert next(b for b in inbox.got if gap_since(b) is None) == sample(7)
        assert bus.subscribed
    finally:
        await bus.stop()
        await publisher.stop()


async def test_a_lost_subscription_hands_the_hub_a_gap_note(redis_server: RedisServer) -> None:
    """Whatever was published while this node was not subscribed is missed: once subscribed
    again, the bus tells its own hub (which makes the agents drain /next)."""
    bus = RedisBus(redis_server.url, backoff_max=0.3)
    inbox = Inbox()
    await start_following(bus, inbox.deliver)
    try:
        started = time.time()
        redis_server.stop()
        await asyncio.sleep(0.5)
        back = time.time()
        redis_server.start()
        await inbox.wait_gap_note()
        notes = [(gap_since(b), gap_until(b)) for b in inbox.got if gap_since(b) is not None]
        assert len(notes) == 1
        since, until = notes[0]
        # Until the subscription was live again: after Redis was back, before the note came.
        assert since is not None and until is not None
        assert started <= since < back <= until <= time.time()
    finally:
        await bus.stop()


async def test_a_lost_publish_is_announced_to_every_node(redis_server: RedisServer) -> None:
    """A publish that Redis did not take while the other nodes stayed subscribed: they never
    hear it, so the publisher sends every node a gap note dated from that loss as soon as
    Redis takes a publish again."""
    one = RedisBus(redis_server.url, backoff_max=0.3)
    two = RedisBus(redis_server.url, backoff_max=0.3)
    inbox_two = Inbox()
    await start_following(one, Inbox().deliver)
    await start_following(two, inbox_two.deliver)
    real_send = one._send
    failures = iter([ConnectionError("Redis went away"), ConnectionError("still away")])

    async def flaky_send(data: Publish) -> None:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        await real_send(data)

    one._send = flaky_send  # type: ignore[method-assign]
    try:
        lost_at = time.time()
        await one.publish(sample(1))  # lost: logged, not raised
        await inbox_two.wait_for(1)
        assert [gap_since(b) is not None for b in inbox_two.got] == [True]
        note, until = gap_since(inbox_two.got[0]), gap_until(inbox_two.got[0])
        assert note is not None and lost_at <= note <= time.time()
        # Until the loss was found (its data was committed before).
        assert until is not None and note <= until <= inbox_two.got[0].published_at
        await one.publish(sample(2))
        await inbox_two.wait_for(2)
        assert inbox_two.got[1] == sample(2)  # nothing more to announce
        await asyncio.sleep(0.3)
        assert len(inbox_two.got) == 2
    finally:
        await one.stop()
        await two.stop()


async def test_no_publish_is_lost_on_stale_pooled_connections(redis_server: RedisServer) -> None:
    """After a Redis restart every pooled connection is dead: each publish on one is retried
    on a fresh connection instead of being lost (which would cost every node a resync)."""
    bus, other = RedisBus(redis_server.url, backoff_max=0.3), RedisBus(redis_server.url)
    inbox = Inbox()
    await start_following(bus, Inbox().deliver)
    await start_following(other, inbox.deliver)
    try:
        await asyncio.gather(*(bus.publish(sample(n)) for n in range(10)))
        await inbox.wait_for(10)
        redis_server.stop()
        redis_server.start()
        await inbox.wait_gap_note()  # the other node resubscribed (its gap note says so)
        inbox.got.clear()
        await asyncio.gather(*(bus.publish(sample(n)) for n in range(20)))
        await inbox.wait_for(20)
        assert sorted(b.payload["n"] for b in inbox.got) == list(range(20))
    finally:
        await bus.stop()
        await other.stop()


async def test_a_failing_hub_does_not_stop_the_subscriber(redis_server: RedisServer) -> None:
    inbox = Inbox()

    async def flaky(b: Broadcast) -> None:
        if b.payload["n"] == 0:
            raise RuntimeError("boom")
        await inbox.deliver(b)

    bus, other = RedisBus(redis_server.url), RedisBus(redis_server.url)
    await start_following(bus, flaky)
    await start_following(other, flaky)
    try:
        await bus.publish(sample(0))  # the publisher's own hub fails too: logged, not raised
        await bus.publish(sample(1))
        await inbox.wait_for(2)
        assert inbox.got == [sample(1), sample(1)]  # the publisher's hub and the other's
    finally:
        await bus.stop()
        await other.stop()


async def test_the_publisher_delivers_its_own_at_once_and_skips_them_heard_back(
    redis_server: RedisServer,
) -> None:
    """The publishing node hands its broadcast to its hub before Redis sees it (no round
    trip), recognises its own on the channel by their opening bytes, and still takes what a
    node of the previous version publishes (plain JSON, no origin)."""
    bus, inbox = RedisBus(redis_server.url), Inbox()
    await start_following(bus, inbox.deliver)
    try:
        real_send = bus._send
        sent: list[Publish] = []

        async def record(data: Publish) -> None:
            assert inbox.got == [sample(1)]  # delivered here before it is published
            sent.append(data)
            await real_send(data)

        bus._send = record  # type: ignore[method-assign]
        await bus.publish(sample(1))
        channel, text = sent[0]
        assert channel == f"{bus.channel}:{TOPIC}"  # its topic's channel: a message in a room
        assert text.startswith('{"origin":"') and '"topic":"chat_room:r1"' in text
        members = json.loads(text)  # any node's decoder still reads it: a JSON object
        assert members["payload"] == sample(1).payload and members["topic"] == "chat_room:r1"
        plain = await open_connection(redis_server.url)
        try:  # an older node's broadcast: no origin
            older = {"topic": "chat_room:r1", "event": "message_created", "agents": ["a1"]}
            older["payload"] = sample(2).payload
            assert await plain.command("PUBLISH", bus.channel, json.dumps(older)) == 1
        finally:
            plain.close()
        await inbox.wait_for(2)
        await asyncio.sleep(0.2)
        assert inbox.got == [sample(1), sample(2)]  # its own once, the older node's once
    finally:
        await bus.stop()


async def test_start_fails_with_a_clear_message_when_redis_is_unreachable() -> None:
    bus = RedisBus(f"redis://:secret@127.0.0.1:{free_port()}/0")
    with pytest.raises(RuntimeError, match=r"cannot reach Redis at redis://:\*\*\*@127\.0\.0\.1"):
        await start_following(bus, Inbox().deliver)


def test_redact_hides_only_the_password() -> None:
    assert redact("redis://u:pw@h:6379/1") == "redis://u:***@h:6379/1"
    assert redact("redis://h:6379/0") == "redis://h:6379/0"


async def _command_calls(url: str) -> dict[str, int]:
    """Redis' count of calls per command since its stats were last reset."""
    conn = await open_connection(url)
    try:
        info = (await conn.command("INFO", "commandstats")).decode()
    finally:
        conn.close()
    calls = {}
    for line in info.splitlines():
        if line.startswith("cmdstat_"):
            name, _, stats = line.partition(":")
            calls[name.removeprefix("cmdstat_")] = int(stats.split(",")[0].split("=")[1])
    return calls


@asynccontextmanager
async def publisher_and_listener(
    url: str, confirm_every: float
) -> AsyncIterator[tuple[RedisBus, Inbox, RespConnection]]:
    """A publishing node, another node's inbox, and a plain connection to steer Redis."""
    bus, other, inbox = RedisBus(url, confirm_every=confirm_every), RedisBus(url), Inbox()
    await start_following(bus, Inbox().deliver)
    await start_following(other, inbox.deliver)
    admin = await open_connection(url)
    try:
        yield bus, inbox, admin
    finally:
        admin.close()
        await bus.stop()
        await other.stop()


async def test_publishes_wait_for_no_reply_and_one_ping_confirms_a_batch(
    redis_server: RedisServer,
) -> None:
    """Each publish is sent with ``CLIENT REPLY SKIP``: Redis answers none of them, and a
    PING at most every ``confirm_every`` confirms all that went before it."""
    async with publisher_and_listener(redis_server.url, 0.2) as (bus, inbox, admin):
        await admin.command("CONFIG", "RESETSTAT")
        for n in range(40):
            await bus.publish(sample(n))
            await asyncio.sleep(0.002)
        await inbox.wait_for(40)
        async with asyncio.timeout(5):
            await bus.flush()  # confirmed: nothing is held for a resend
        assert inbox.got == [sample(n) for n in range(40)]
        calls = await _command_calls(redis_server.url)
        assert calls["publish"] == 40 and calls["client|reply"] == 40
        assert 1 <= calls["ping"] <= 3  # about 0.1 s of publishes: one PING, perhaps two


async def test_publishes_a_lost_connection_had_not_confirmed_are_resent(
    redis_server: RedisServer,
) -> None:
    """The publishing connection is cut while Redis holds its last publishes unrun (paused)
    and before the PING that would confirm them: they are sent again on a fresh connection,
    so the other node misses none, and it is told of no gap."""
    async with publisher_and_listener(redis_server.url, 0.5) as (bus, inbox, admin):
        await bus.publish(sample(0))
        await bus.flush()  # confirmed at once: the next PING is due 0.5 s later
        await admin.command("CLIENT", "PAUSE", "5000", "WRITE")  # PUBLISH waits, unrun
        for n in range(1, 6):
            await bus.publish(sample(n))
        await asyncio.sleep(0.05)
        await admin.command("CLIENT", "KILL", "TYPE", "normal")  # not this one (SKIPME)
        await admin.command("CLIENT", "UNPAUSE")
        async with asyncio.timeout(5):
            await bus.flush()
        await inbox.wait_for(6)
        await asyncio.sleep(0.3)
        assert sorted(b.payload["n"] for b in inbox.got) == list(range(6))  # each once
        assert not any(gap_since(b) is not None for b in inbox.got)
        await bus.publish(sample(6))  # the fresh connection publishes quietly again
        await inbox.wait_for(7)
        assert inbox.got[-1] == sample(6)


async def test_unconfirmed_publishes_that_cannot_be_resent_are_announced_as_a_gap(
    redis_server: RedisServer,
) -> None:
    async with publisher_and_listener(redis_server.url, 0.5) as (bus, inbox, admin):
        real_send = bus._send_answered
        failures = iter([ConnectionError("Redis went away")])

        async def flaky_send(data: Publish) -> None:
            failure = next(failures, None)
            if failure is not None:
                raise failure
            await real_send(data)

        await bus.publish(sample(0))
        await bus.flush()
        held_at = time.time()
        await bus.publish(sample(1))
        bus._send_answered = flaky_send  # type: ignore[method-assign]
        await admin.command("CLIENT", "KILL", "TYPE", "normal")  # not this one (SKIPME)
        await inbox.wait_gap_note()
        note = next(gap_since(b) for b in inbox.got if gap_since(b) is not None)
        assert note is not None and held_at <= note <= time.time()


async def test_one_loop_iterations_publishes_go_out_in_one_write_after_its_work(
    redis_server: RedisServer,
) -> None:
    """Quiet publishes are written once the loop iteration that made them is done (the
    node's own work, such as its answer to a request, goes first), all in one send."""
    async with publisher_and_listener(redis_server.url, 0.2) as (bus, inbox, _):
        await bus.publish(sample(0))  # opens nothing new: the connection is quiet already
        await bus.flush()
        conn = bus._quiet
        assert conn is not None
        writes: list[int] = []
        real_many = conn.send_quiet_many

        def record(commands: list[tuple[str | bytes | int, ...]]) -> None:
            writes.append(len(commands))
            real_many(commands)

        conn.send_quiet_many = record  # type: ignore[method-assign]
        for n in range(1, 6):  # one task, no suspension: one loop iteration
            await bus.publish(sample(n))
        assert writes == []  # not yet: this iteration is not done
        await asyncio.sleep(0)
        assert writes == [5]
        await inbox.wait_for(6)
        assert inbox.got == [sample(n) for n in range(6)]
