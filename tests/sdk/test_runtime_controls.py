"""``agent.control`` pushed over the real socket: interrupt consumes, stop leaves, play replays."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from runtime_support import (
    EchoAdapter,
    Person,
    control,
    delivery_status,
    make_agent,
    until,
    until_status,
)

from band.core.exceptions import AgentAlreadyRunningError
from band.core.types import ConflictPolicy
from band.runtime.config import AgentConfig

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)


async def test_interrupt_cancels_the_turn_and_consumes_the_message(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Interrupt", seeded.agent_id)
    adapter = EchoAdapter()
    adapter.gate = asyncio.Event()  # never opened: only the interrupt ends the turn
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        message_id = await alice.say(room, "long job", seeded.agent_id)
        await until(lambda: len(adapter.turns) == 1)
        await control(live_server, seeded.agent_id, None, "interrupt")
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        assert await alice.replies(room, seeded.agent_id) == []
        assert await alice.events(room, "error") == []
    finally:
        await agent.stop(5)


async def test_stop_leaves_the_message_and_play_replays_it(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Pause", seeded.agent_id)
    adapter = EchoAdapter()
    adapter.gate = asyncio.Event()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        message_id = await alice.say(room, "stop me", seeded.agent_id)
        await until(lambda: len(adapter.turns) == 1)
        await control(live_server, seeded.agent_id, room, "stop")
        await until(
            lambda: (
                agent.runtime.workers[room].is_stopped
                and not agent.runtime.workers[room].is_processing
            )
        )
        await asyncio.sleep(0.2)
        assert await delivery_status(alice, room, message_id, seeded.agent_id) == "processing"
        adapter.gate.set()
        await control(live_server, seeded.agent_id, room, "play")
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        assert [t.msg.id for t in adapter.turns] == [message_id, message_id]
        assert len(await alice.replies(room, seeded.agent_id)) == 1
    finally:
        await agent.stop(5)


async def test_reject_policy_refuses_to_start_next_to_a_live_connection(
    live_server: Any, seeded: Any
) -> None:
    first = make_agent(live_server, seeded.agent_id, seeded.agent_key, EchoAdapter())
    await first.start()
    try:
        config = AgentConfig(single_instance=False, conflict_policy=ConflictPolicy.REJECT)
        second = make_agent(
            live_server, seeded.agent_id, seeded.agent_key, EchoAdapter(), config=config
        )
        with pytest.raises(AgentAlreadyRunningError):
            await second.start()
        assert not second.is_running
        assert first.runtime.link is not None and first.runtime.link.is_connected
    finally:
        await first.stop(5)
