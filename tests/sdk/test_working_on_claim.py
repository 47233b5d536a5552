"""The working indicator rides on the claim, and the claim on the push, when the platform
says it can.

Against our platform a pushed message arrives claimed (``claim_on_push=working``): the turn
sends neither ``/processing`` nor ``/activity``, and its ``/processed`` or ``/failed`` ends
the indicator the push's claim started. Against a platform that does not claim on push
(simulated by the platform finding no socket that asked) the turn claims with
``Band-Working: true`` and still sends no ``/activity``; against one that does not know the
header either (dropped on the way), the turn reports ``working: true`` and ``working: false``
itself, as before. Requests are counted at the agent's REST transport; people's pushes at the
platform's bus.
"""

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

from band.core.exceptions import InputNotAccepted
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.platform.rest import WORKING_HEADER, BandRestClient
from band.runtime.execution_types import ExecutionState
from band_server.fanout.bus import Broadcast

pytestmark = pytest.mark.timeout(60)


class Counting(httpx.AsyncBaseTransport):
    """The agent's REST transport: records each request; ``unaware`` drops the claim's
    ``Band-Working`` header, as a platform that does not know it would ignore it."""

    def __init__(self, *, unaware: bool = False) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.unaware = unaware
        self.seen: list[str] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.unaware and WORKING_HEADER in request.headers:
            del request.headers[WORKING_HEADER]
        self.seen.append(f"{request.method} {request.url.path}")
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()

    def calls(self, room_id: str, suffix: str) -> int:
        return sum(1 for r in self.seen if f"/chats/{room_id}/" in r and r.endswith(suffix))


class Pushes:
    """The ``agent_activity`` pushes the platform sends people, in order."""

    def __init__(self, platform: Any) -> None:
        self.working: list[bool] = []
        original = platform.bus.publish

        async def publish(b: Broadcast) -> None:
            if b.event == "agent_activity":
                self.working.append(bool(b.payload["working"]))
            await original(b)

        platform.bus.publish = publish


class Deferring(EchoAdapter):
    """Does not accept its input (the message stays open) until ``accept`` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.accept = asyncio.Event()
        self.deferred: list[str] = []

    async def on_message(
        self, msg: PlatformMessage, tools: AgentToolsProtocol, *args: Any, **kw: Any
    ) -> None:
        if not self.accept.is_set():
            self.deferred.append(msg.id)
            raise InputNotAccepted("not yet")
        await super().on_message(msg, tools, *args, **kw)


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)


async def started(agent: Any, room: str) -> None:
    """The room's first ``/next`` drain is over: a post from now on reaches it as a push (one
    posted during the drain may be served by it, and claimed over REST)."""
    await agent.start()
    await until(lambda: agent.runtime.workers[room].state is ExecutionState.IDLE)


def without_push_claims(platform: Any) -> None:
    """The platform as one that does not claim on push would be: no socket asked."""
    platform.claim_on_push = lambda agent_id, room_id: None


async def one_turn(
    live_server: Any, seeded: Any, alice: Person, transport: Counting
) -> tuple[str, Pushes]:
    room = await alice.create_room("Lab", seeded.agent_id)
    pushes = Pushes(live_server.platform)
    agent = make_agent(
        live_server, seeded.agent_id, seeded.agent_key, EchoAdapter(), transport=transport
    )
    await started(agent, room)
    try:
        message_id = await alice.say(room, "hello", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        await until(lambda: len(pushes.working) >= 2)
    finally:
        await agent.stop(5)
    return room, pushes


async def test_a_message_claimed_with_its_push_costs_its_turn_one_mark(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    transport = Counting()
    room, pushes = await one_turn(live_server, seeded, alice, transport)
    assert transport.calls(room, "/processing") == 0
    assert transport.calls(room, "/processed") == 1
    assert transport.calls(room, "/activity") == 0
    assert pushes.working == [True, False]
    assert not live_server.platform.activity.is_working(room, seeded.agent_id)


async def test_against_a_platform_that_echoes_a_turn_sends_no_activity(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    without_push_claims(live_server.platform)
    transport = Counting()
    room, pushes = await one_turn(live_server, seeded, alice, transport)
    assert transport.calls(room, "/processing") == 1
    assert transport.calls(room, "/processed") == 1
    assert transport.calls(room, "/activity") == 0
    assert pushes.working == [True, False]  # people still see it start and stop, once
    assert not live_server.platform.activity.is_working(room, seeded.agent_id)


async def test_against_a_platform_that_does_not_a_turn_reports_working_itself(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    without_push_claims(live_server.platform)
    transport = Counting(unaware=True)
    room, pushes = await one_turn(live_server, seeded, alice, transport)
    assert transport.calls(room, "/processing") == 1
    assert transport.calls(room, "/activity") == 2
    assert pushes.working == [True, False]
    assert not live_server.platform.activity.is_working(room, seeded.agent_id)


async def test_a_turn_that_leaves_its_message_open_ends_the_indicator_itself(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    """No mark follows a deferred turn: the SDK sends ``working: false`` (only that)."""
    room = await alice.create_room("Held", seeded.agent_id)
    transport = Counting()
    pushes = Pushes(live_server.platform)
    adapter = Deferring()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter, transport=transport)
    await agent.start()
    try:
        message_id = await alice.say(room, "later", seeded.agent_id)
        await until(lambda: pushes.working == [True, False])
        assert transport.calls(room, "/activity") == 1
        assert live_server.platform.activity.is_working(room, seeded.agent_id) is False
        adapter.accept.set()
        await agent.runtime.workers[room].request_resync()
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        await until(lambda: pushes.working == [True, False, True, False])
        assert transport.calls(room, "/activity") == 1
    finally:
        await agent.stop(5)


async def test_a_stopped_room_ends_the_indicator_its_push_started_and_runs_it_on_play(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    """Stopped while idle, the room leaves the pushed (and claimed) message for ``/next``
    after play, and ends the indicator its claim started at once; play runs it, claiming
    over REST (the live attempt: a sign of life)."""
    room = await alice.create_room("Paused", seeded.agent_id)
    transport = Counting()
    pushes = Pushes(live_server.platform)
    adapter = EchoAdapter()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter, transport=transport)
    await started(agent, room)
    try:
        worker = agent.runtime.workers[room]
        await control(live_server, seeded.agent_id, room, "stop")
        await until(lambda: worker.is_stopped)
        message_id = await alice.say(room, "while stopped", seeded.agent_id)
        await until(lambda: pushes.working == [True, False])
        assert transport.calls(room, "/activity") == 1
        assert adapter.turns == []
        assert await delivery_status(alice, room, message_id, seeded.agent_id) == "processing"
        await control(live_server, seeded.agent_id, room, "play")
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        assert [t.msg.id for t in adapter.turns] == [message_id]
        assert transport.calls(room, "/processing") == 1
        await until(lambda: pushes.working == [True, False, True, False])
    finally:
        await agent.stop(5)


async def test_a_push_claimed_while_a_turn_runs_is_claimed_again(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    """A claimed push that arrives while the room is busy is claimed over REST when its turn
    comes (the turn before it moved the indicator). Here the running turn's message is
    settled from outside, so the platform sees no live attempt and claims the next one."""
    room = await alice.create_room("Busy", seeded.agent_id)
    transport = Counting()
    adapter = EchoAdapter()
    adapter.gate = asyncio.Event()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter, transport=transport)
    await started(agent, room)
    try:
        first = await alice.say(room, "first", seeded.agent_id)
        await until(lambda: len(adapter.turns) == 1)
        headers = {"x-api-key": seeded.agent_key}
        async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as other:
            r = await other.post(f"/api/v1/agent/chats/{room}/messages/{first}/processed")
            assert r.status_code == 200, r.text
        pushes = Pushes(live_server.platform)
        second = await alice.say(room, "second", seeded.agent_id)
        await until(lambda: pushes.working == [True])  # claimed with its push
        adapter.gate.set()
        await until_status(alice, room, second, seeded.agent_id, "processed")
        assert [t.msg.id for t in adapter.turns] == [first, second]
        assert transport.calls(room, f"/{second}/processing") == 1  # over REST
        assert not live_server.platform.activity.is_working(room, seeded.agent_id)
    finally:
        await agent.stop(5)


async def test_the_claim_reports_whether_the_platform_started_the_indicator() -> None:
    echoed: list[bool] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked = request.headers.get(WORKING_HEADER) == "true"
        echoed.append(asked)
        body = {"data": {"id": "m1", "status": "processing", "success": True}}
        return httpx.Response(200, json=body, headers={WORKING_HEADER: "true"} if asked else {})

    rest = BandRestClient("http://band.test", "key", transport=httpx.MockTransport(answer))
    try:
        assert (await rest.claim("r1", "m1", working=True)).working is True
        assert (await rest.claim("r1", "m1")).working is False
        assert (await rest.mark_processing("r1", "m1")).ok
    finally:
        await rest.aclose()
    assert echoed == [True, False, False]
