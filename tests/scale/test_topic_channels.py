"""Channels per topic: a node hears a topic's broadcasts only while one of its sockets holds
the topic; what every node acts on goes on the common channel."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from band_server.fanout.bus import SUPERSEDE_ONLY, Broadcast, gap_since
from band_server.fanout.redis_bus import RedisBus
from band_server.fanout.resp import open_connection
from band_server.realtime.hub import Hub
from band_server.services.identity.principals import Principal

from .real_services import RedisServer
from .test_presence import until
from .test_redis_bus import TOPIC, Inbox, sample


async def _subscribers(url: str, channel: str) -> int:
    conn = await open_connection(url)
    try:
        reply = await conn.command("PUBSUB", "NUMSUB", channel)
        return int(reply[1])
    finally:
        conn.close()


async def _quiet_for(inbox: Inbox, seconds: float = 0.3) -> None:
    await asyncio.sleep(seconds)
    assert [b for b in inbox.got if gap_since(b) is None] == []


@asynccontextmanager
async def two_nodes_following_nothing(url: str) -> AsyncIterator[tuple[RedisBus, RedisBus, Inbox]]:
    """Node one (publishes) and node two (its inbox), neither following a topic yet."""
    one, two, inbox = RedisBus(url), RedisBus(url), Inbox()
    await one.start(Inbox().deliver)
    await two.start(inbox.deliver)
    try:
        yield one, two, inbox
    finally:
        await one.stop()
        await two.stop()


async def test_a_node_hears_a_topic_while_it_follows_it_and_not_after(
    redis_server: RedisServer,
) -> None:
    async with two_nodes_following_nothing(redis_server.url) as (one, two, inbox):
        channel = f"{two.channel}:{TOPIC}"
        await one.publish(sample(0))  # nobody on node two holds the topic
        await _quiet_for(inbox)
        await two.follow(TOPIC)
        await two.follow(TOPIC)  # a second socket of node two joins it
        assert await _subscribers(redis_server.url, channel) == 1
        await one.publish(sample(1))
        await inbox.wait_for(1)
        two.forget(TOPIC)  # one socket left: the other still holds it
        await one.publish(sample(2))
        await inbox.wait_for(2)
        assert inbox.got == [sample(1), sample(2)]
        two.forget(TOPIC)  # the last one left

        async def unsubscribed() -> bool:
            return await _subscribers(redis_server.url, channel) == 0

        await until(unsubscribed, "node two unsubscribed from the topic")
        inbox.got.clear()
        await one.publish(sample(3))
        await _quiet_for(inbox)


async def test_what_every_node_acts_on_reaches_nodes_that_follow_nothing(
    redis_server: RedisServer,
) -> None:
    """Revocations (meta), membership changes (the roster cache) and rooms removed reach a
    node none of whose sockets holds the topic."""
    every_node = [
        Broadcast("agent_control:a1", "supersede", {}, meta={"close_principal": "a1"}),
        Broadcast("room_participants:r1", "participant_added", {"id": "p1"}),
        Broadcast("user_rooms:u1", "room_removed", {"id": "r1"}),
    ]
    async with two_nodes_following_nothing(redis_server.url) as (one, _, inbox):
        await one.publish(sample(0))  # a room's message: only for nodes that follow the room
        for b in every_node:
            await one.publish(b)
        await inbox.wait_for(3)
        await asyncio.sleep(0.2)
        assert inbox.got == every_node


async def test_a_principals_own_topics_share_its_channel(redis_server: RedisServer) -> None:
    """An agent's three own topics are one SUBSCRIBE: each is heard while any is followed."""
    own = ["agent_control:a1", "agent_rooms:a1", "agent_contacts:a1"]
    async with two_nodes_following_nothing(redis_server.url) as (one, two, inbox):
        channel = f"{two.channel}:principal:a1"
        for t in own:
            await two.follow(t)
        assert await _subscribers(redis_server.url, channel) == 1
        assert two._subscription.channels == frozenset({channel})
        heard = [Broadcast(t, "e", {"n": i}) for i, t in enumerate(own)]
        for b in heard:
            await one.publish(b)
        await inbox.wait_for(3)
        assert inbox.got == heard
        two.forget(own[0])
        two.forget(own[1])  # agent_contacts is still held: the channel stays
        await one.publish(heard[0])
        await inbox.wait_for(4)
        two.forget(own[2])

        async def unsubscribed() -> bool:
            return await _subscribers(redis_server.url, channel) == 0

        await until(unsubscribed, "node two unsubscribed from the agent's channel")
        inbox.got.clear()
        await one.publish(heard[1])
        await _quiet_for(inbox)


async def test_a_supersede_reaches_only_the_nodes_following_its_agent(
    redis_server: RedisServer,
) -> None:
    """A new socket's supersede is not a revocation: it goes on the agent's channel, so a node
    holding no socket of the agent is not woken for it; one that holds one hears it."""
    supersede = Broadcast(
        "agent_control:a1",
        "supersede",
        {},
        exclude_conn="c2",
        meta={"close_principal": "a1", "close_code": 1008, SUPERSEDE_ONLY: True},
    )
    async with two_nodes_following_nothing(redis_server.url) as (one, two, inbox):
        await one.publish(supersede)
        await _quiet_for(inbox)
        await two.follow("agent_rooms:b2")  # another agent's socket: not this one's channel
        await one.publish(supersede)
        await _quiet_for(inbox)
        await two.follow("agent_control:a1")  # a socket of a1 opened on node two
        await one.publish(supersede)
        await inbox.wait_for(1)
        assert inbox.got == [supersede]


async def test_a_follow_while_redis_is_away_is_subscribed_once_it_is_back(
    redis_server: RedisServer,
) -> None:
    """A join does not wait for a subscription that is down: its topic is subscribed with the
    others when the node resubscribes, and the node's hub gets a gap note."""
    one = RedisBus(redis_server.url, backoff_max=0.3)
    two = RedisBus(redis_server.url, backoff_max=0.3)
    inbox = Inbox()
    await two.start(inbox.deliver)
    try:
        redis_server.stop()

        async def down() -> bool:
            return not two.subscribed

        await until(down, "node two's subscription is lost")
        async with asyncio.timeout(1):
            await two.follow(TOPIC)  # at once
        redis_server.start()
        await inbox.wait_gap_note()
        await one.start(Inbox().deliver)
        await one.publish(sample(1))
        await inbox.wait_for(2)
        assert inbox.got[1:] == [sample(1)]
    finally:
        await one.stop()
        await two.stop()


async def test_a_follow_cancelled_while_it_waits_leaves_nothing_followed(
    redis_server: RedisServer,
) -> None:
    """The socket went away while its join waited for Redis: the topic is unsubscribed; and
    a join right after subscribes it again."""
    bus = RedisBus(redis_server.url)
    await bus.start(Inbox().deliver)
    admin = await open_connection(redis_server.url)
    try:
        await admin.command("CLIENT", "PAUSE", 3000, "ALL")  # SUBSCRIBE waits unanswered
        waiting = asyncio.create_task(bus.follow(TOPIC))
        await asyncio.sleep(0.1)
        assert not waiting.done()
        waiting.cancel()
        await asyncio.gather(waiting, return_exceptions=True)
        assert bus._subscription.channels == frozenset()
        await admin.command("CLIENT", "UNPAUSE")
        await asyncio.sleep(0.1)  # SUBSCRIBE, then UNSUBSCRIBE, ran in order
        assert await _subscribers(redis_server.url, f"{bus.channel}:{TOPIC}") == 0
        # Again, and the agent joins again before Redis answers: SUBSCRIBE, UNSUBSCRIBE, then
        # the new join's own SUBSCRIBE (not a wait for the first one's reply).
        await admin.command("CLIENT", "PAUSE", 3000, "ALL")
        first = asyncio.create_task(bus.follow(TOPIC))
        await asyncio.sleep(0.1)
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)
        second = asyncio.create_task(bus.follow(TOPIC))
        await asyncio.sleep(0.1)
        await admin.command("CLIENT", "UNPAUSE")
        await asyncio.wait_for(second, 10)
        await asyncio.sleep(0.3)
        assert await _subscribers(redis_server.url, f"{bus.channel}:{TOPIC}") == 1
    finally:
        admin.close()
        await bus.stop()


class _Conn:
    def __init__(self, ident: str, principal: Principal) -> None:
        self.id, self.principal = ident, principal

    def send_text(self, frame: str) -> None:
        pass

    def close(self, code: int) -> None:
        pass


async def test_the_hub_tells_each_topic_a_connection_stops_holding() -> None:
    """Left, unregistered, or revoked by a broadcast: each (connection, topic) it held is
    told once, so the bus forgets it as often as it followed it."""
    hub, left = Hub(), list[str]()
    hub.on_left = left.append
    alice = Principal("user", "u1", "Alice", "alice")
    a, b = _Conn("c1", alice), _Conn("c2", alice)
    for conn in (a, b):
        hub.register(conn)
        hub.join(conn, "chat_room:r1", "1")
        hub.join(conn, "user_rooms:u1", "2")
    hub.leave(a, "chat_room:r1")
    hub.leave(a, "chat_room:r1")  # twice: told once
    assert left == ["chat_room:r1"]
    meta = {"revoke": ["chat_room:r1"], "principal": "u1"}
    await hub.deliver(Broadcast("user_rooms:u1", "room_removed", {}, meta=meta))
    assert left == ["chat_room:r1", "chat_room:r1"]  # b's
    hub.unregister(a)
    hub.unregister(b)
    assert sorted(left) == ["chat_room:r1", "chat_room:r1", "user_rooms:u1", "user_rooms:u1"]
