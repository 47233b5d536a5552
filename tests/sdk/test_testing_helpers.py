"""band.testing's helpers as band-sdk offers them: the fake Phoenix server under a real BandLink,
cutting its transport, scripted model turns driving a real Agent, the small stubs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from openai import AsyncOpenAI

from band import Agent
from band.adapters.openai_chat import OpenAIChatAdapter
from band.core.types import AdapterFeatures, Capability, Emit
from band.platform.event import MessageEvent, ReconnectedEvent
from band.platform.link import BandLink
from band.platform.socket import SocketTimings
from band.testing import (
    ErrorTurn,
    FakeModel,
    JoinOutcome,
    LocalPlatform,
    TextTurn,
    ToolTurn,
    close_transport,
    fake_phoenix_server,
    feature_kwargs,
    force_transport_disconnect,
    live_connection,
    platform_connection_stub,
)
from band.testing.fake_models import fake_openai_server
from band.testing.fake_tools import FakeAgentTools, page_slice, total_pages

FAST = SocketTimings(
    backoff_base=0.01, backoff_cap=0.05, rapid_floors=(0.01, 0.02), initial_retry_delays=(0.05,)
)
PUSH = {
    "id": "m1",
    "content": "hello",
    "message_type": "text",
    "metadata": {"mentions": [{"id": "agent-1"}]},
    "sender_id": "u1",
    "sender_type": "User",
    "sender_name": "Alice",
    "chat_room_id": "r1",
    "inserted_at": "2026-01-01T00:00:00Z",
    "updated_at": "2026-01-01T00:00:00Z",
}


def _rooms(request: httpx.Request) -> httpx.Response:
    room = {"id": "r1", "title": "lab", "inserted_at": PUSH["inserted_at"]}
    body = {"data": [{**room, "updated_at": PUSH["updated_at"]}], "metadata": {"total_pages": 1}}
    return httpx.Response(200, json=body)


@pytest.fixture
async def link_and_server() -> AsyncIterator[tuple[BandLink, object]]:
    script = {"chat_room:r1": [JoinOutcome.REJECTED, JoinOutcome.OK]}
    async with fake_phoenix_server(join_outcomes=script) as server:
        link = BandLink(
            "agent-1",
            "key-1",
            ws_url=server.url,
            rest_url="http://band.test",
            transport=httpx.MockTransport(_rooms),
            timings=FAST,
        )
        await link.connect()
        try:
            yield link, server
        finally:
            await link.disconnect()


async def _next(link: BandLink, kind: type) -> object:
    async with asyncio.timeout(5):
        while not isinstance(event := await link.next_event(), kind):
            pass
        return event


async def test_a_real_link_joins_gets_pushes_and_rejoins_after_its_transport_is_cut(
    link_and_server: tuple[BandLink, object],
) -> None:
    link, server = link_and_server
    assert server.upgrades[0].headers["x-api-key"] == "key-1"
    assert server.upgrades[0].query["agent_id"] == "agent-1"
    assert not await link.subscribe_room("r1")  # the script refuses the first join
    await server.until(lambda: "chat_room:r1" in server.joined_topics, limit=5)
    await server.push("chat_room:r1", "message_created", PUSH)
    event = await _next(link, MessageEvent)
    assert event.room_id == "r1" and event.payload.content == "hello"

    await force_transport_disconnect(link)  # no close handshake: a network drop
    await _next(link, ReconnectedEvent)
    assert server.connection_count == 2
    assert {"agent_control:agent-1", "chat_room:r1"} <= server.joined_topics
    await close_transport(link)  # a normal client-side close is reconnected too
    await _next(link, ReconnectedEvent)
    assert server.connection_count == 3
    assert live_connection(link) is link.socket.connection


async def test_a_refused_upgrade_is_the_platforms_connection_conflict() -> None:
    from band.core.exceptions import AgentAlreadyRunningError

    async with fake_phoenix_server(refuse_upgrades=True) as server:
        link = BandLink("agent-1", "k", ws_url=server.url, rest_url="http://band.test")
        with pytest.raises(AgentAlreadyRunningError, match="already has a live connection"):
            await link.connect()
        await link.disconnect()
        with pytest.raises(RuntimeError, match="no active transport"):
            live_connection(link)


async def test_scripted_turns_drive_a_real_agent_on_the_local_platform() -> None:
    fake = FakeModel().script(
        ToolTurn("band_send_message", {"content": "on it", "mentions": ["alice"]}),
        TextTurn("done"),
        ErrorTurn(RuntimeError("provider down")),
    )
    with fake_openai_server(fake) as base_url:
        async with LocalPlatform() as platform:
            alice = await platform.person("alice", "Alice")
            echo = await platform.agent(alice, "Echo")
            room = await platform.room(alice, echo, title="lab")
            client = AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
            adapter = OpenAIChatAdapter("fake-model", client=client, emit=[Emit.THOUGHTS])
            agent = Agent.create(
                adapter=adapter,
                agent_id=echo.id,
                api_key=echo.key,
                rest_url=platform.rest_url,
                ws_url=platform.ws_url,
            )
            await agent.start()
            try:
                await platform.post(alice, room, "please help", echo)

                async def said() -> list[str]:
                    messages = await platform.messages(alice, room)
                    return [m["content"] for m in messages if m["sender_id"] == echo.id]

                async with asyncio.timeout(20):
                    while fake.pending > 1 or not await said():  # noqa: ASYNC110
                        await asyncio.sleep(0.05)
                assert [text.endswith("on it") for text in await said()] == [True]
                await platform.post(alice, room, "again", echo)  # the ErrorTurn answers 500
                async with asyncio.timeout(20):
                    while len(fake.requests) < 3:  # noqa: ASYNC110
                        await asyncio.sleep(0.05)
            finally:
                await agent.stop()
    assert [r.api for r in fake.requests] == ["openai", "openai", "openai"]


def test_feature_kwargs_and_platform_stub_and_paging() -> None:
    features = AdapterFeatures(capabilities=[Capability.MEMORY], include_tools=["band_get_memory"])
    assert feature_kwargs(None) == {}
    assert feature_kwargs(features)["capabilities"] == frozenset({Capability.MEMORY})
    assert feature_kwargs(features)["exclude_tools"] is None
    stub = platform_connection_stub("a-1")
    assert (stub.agent_id, stub.api_key) == ("a-1", "test-api-key")
    items = [{"n": i} for i in range(5)]
    assert page_slice(items, 2, 2) == [{"n": 2}, {"n": 3}]
    assert (total_pages(5, 2), total_pages(0, 50)) == (3, 0)


async def test_a_held_message_waits_in_flight_then_lands_or_fails() -> None:
    tools = FakeAgentTools(participants=[{"id": "u1", "name": "Alice", "handle": "alice"}])
    held = tools.hold_message("slow")
    sending = asyncio.create_task(tools.send_message("a slow answer", mentions=["alice"]))
    async with held:
        assert tools.messages_sent == []  # in flight
    await sending
    assert tools.chat == ["a slow answer"]
    failing = tools.hold_message("doomed", error=ConnectionError("dropped"))
    task = asyncio.create_task(tools.send_message("doomed", mentions=["alice"]))
    async with failing:
        pass
    with pytest.raises(ConnectionError):
        await task
