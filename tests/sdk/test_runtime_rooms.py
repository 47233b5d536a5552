"""Rooms coming and going, a dropped socket mid-turn, and a second instance superseding."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from runtime_support import EchoAdapter, Person, make_agent, until, until_status

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)


async def test_a_room_added_while_running_is_joined_and_served(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    adapter = EchoAdapter()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        room = await alice.create_room("Later", seeded.agent_id)
        await until(lambda: room in agent.runtime.workers)
        message_id = await alice.say(room, "you are here now", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        assert len(await alice.replies(room, seeded.agent_id)) == 1
    finally:
        await agent.stop(5)


async def test_a_removed_room_is_left_and_cleaned_up(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Brief", seeded.agent_id)
    adapter = EchoAdapter()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        assert room in agent.runtime.workers
        await alice.remove(room, seeded.agent_id)
        await until(lambda: adapter.cleaned == [room])
        assert room not in agent.runtime.workers
        assert agent.runtime.link is not None
        assert not agent.runtime.link.is_room_subscribed(room)
    finally:
        await agent.stop(5)
    assert adapter.cleaned == [room]  # not cleaned twice at stop


async def test_socket_dropped_mid_turn_loses_nothing_and_doubles_nothing(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Flaky", seeded.agent_id)
    adapter = EchoAdapter()
    adapter.gate = asyncio.Event()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    link = agent.runtime.link
    assert link is not None
    try:
        during = await alice.say(room, "first", seeded.agent_id)
        await until(lambda: len(adapter.turns) == 1)
        hub = live_server.platform.hub
        for conn in hub.connections_of(seeded.agent_id):
            conn.close(1011)
        await until(lambda: not link.is_connected)
        missed = await alice.say(room, "sent while offline", seeded.agent_id)
        adapter.gate.set()  # the turn finishes over REST while the socket is down
        await until_status(alice, room, during, seeded.agent_id, "processed")
        await until(lambda: link.socket.connect_count >= 2)
        await until_status(alice, room, missed, seeded.agent_id, "processed")
        after = await alice.say(room, "after reconnect", seeded.agent_id)
        await until_status(alice, room, after, seeded.agent_id, "processed")
        await asyncio.sleep(0.3)
        assert [t.msg.id for t in adapter.turns] == [during, missed, after]
        assert len(await alice.replies(room, seeded.agent_id)) == 3
    finally:
        await agent.stop(5)


async def test_a_second_instance_supersedes_the_first(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Handover", seeded.agent_id)
    old_adapter, new_adapter = EchoAdapter(), EchoAdapter()
    old = make_agent(live_server, seeded.agent_id, seeded.agent_key, old_adapter)
    await old.start()
    old_run = asyncio.create_task(old.run_forever(install_signal_handlers=False))
    new = make_agent(live_server, seeded.agent_id, seeded.agent_key, new_adapter)
    await new.start()
    try:
        await asyncio.wait_for(old_run, 10)  # the old host returns instead of reconnecting
        assert old.runtime.link is not None and old.runtime.link.superseded
        await old.stop(5)
        message_id = await alice.say(room, "who answers?", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        assert [t.msg.id for t in new_adapter.turns] == [message_id]
        assert old_adapter.turns == []
        assert old.runtime.link.socket.connect_count == 1
    finally:
        await new.stop(5)
