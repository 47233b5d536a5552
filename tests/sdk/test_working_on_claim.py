"""The working indicator rides on the claim when the platform says it can.

Against our platform (it answers ``Band-Working: true``) a turn sends no ``/activity``: the
claim starts the indicator and ``/processed`` or ``/failed`` ends it. Against a platform
that does not know the header (simulated by dropping it on the way), the turn reports
``working: true`` and ``working: false`` itself, as before. Requests are counted at the
agent's REST transport; people's pushes at the platform's bus.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from runtime_support import EchoAdapter, Person, make_agent, until, until_status

from band.core.exceptions import InputNotAccepted
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.platform.rest import WORKING_HEADER, BandRestClient
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


async def one_turn(
    live_server: Any, seeded: Any, alice: Person, transport: Counting
) -> tuple[str, Pushes]:
    room = await alice.create_room("Lab", seeded.agent_id)
    pushes = Pushes(live_server.platform)
    agent = make_agent(
        live_server, seeded.agent_id, seeded.agent_key, EchoAdapter(), transport=transport
    )
    await agent.start()
    try:
        message_id = await alice.say(room, "hello", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        await until(lambda: len(pushes.working) >= 2)
    finally:
        await agent.stop(5)
    return room, pushes


async def test_against_a_platform_that_echoes_a_turn_sends_no_activity(
    live_server: Any, seeded: Any, alice: Person
) -> None:
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
