"""``A2AGatewayAdapter``: the real a2a-sdk client calls a Band agent through the gateway.

Echo (a Band agent replying ``echo: <text>``) and the gateway agent run on the live platform;
the A2A client reads Echo's card from the gateway and sends it messages.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from ..framework_support import require

require("a2a", "BAND_REQUIRE_A2A")

from a2a.client import ClientConfig, ClientFactory  # noqa: E402
from a2a.helpers import get_message_text, new_text_message  # noqa: E402
from a2a.types import CancelTaskRequest, Role, SendMessageRequest, TaskState  # noqa: E402
from runtime_support import EchoAdapter, make_agent  # noqa: E402

from band.integrations.a2a.gateway import (  # noqa: E402
    A2AGatewayAdapter,
    A2AGatewayAdapterConfig,
)
from conftest import make_agent as create_agent  # noqa: E402

pytestmark = pytest.mark.timeout(90)


@asynccontextmanager
async def agents(
    live: Any, seeded: Any, echo: EchoAdapter, gateway_key: tuple[str, str], **config: Any
) -> AsyncIterator[A2AGatewayAdapter]:
    """Echo (the seeded agent) and the gateway agent, both running."""
    gateway = A2AGatewayAdapter(A2AGatewayAdapterConfig(port=0, **config))
    peer = make_agent(live, seeded.agent_id, seeded.agent_key, echo)
    door = make_agent(live, gateway_key[0], gateway_key[1], gateway)
    await peer.start()
    await door.start()
    try:
        yield gateway
    finally:
        await door.stop(5)
        await peer.stop(5)


@pytest.fixture
async def gateway_key(live_server: Any, seeded: Any) -> tuple[str, str]:
    agent_id, key, _ = await create_agent(live_server.platform, seeded.user_id, "Gateway")
    return agent_id, key


async def client_for(url: str, http: httpx.AsyncClient, *, streaming: bool = True) -> Any:
    return await ClientFactory(
        ClientConfig(streaming=streaming, httpx_client=http)
    ).create_from_url(url)


async def send(client: Any, text: str, context_id: str | None = None) -> list[Any]:
    message = new_text_message(text, role=Role.ROLE_USER, context_id=context_id)
    return [event async for event in client.send_message(SendMessageRequest(message=message))]


def echoed(status: Any) -> str:
    """The text Echo echoed (its reply repeats the message the platform delivered to it)."""
    text = str(get_message_text(status.message))
    assert text.startswith("echo: "), text
    return text.rsplit(" ", 1)[-1] if "@" in text else text.removeprefix("echo: ")


def final(events: list[Any]) -> Any:
    last = events[-1]
    return last.task.status if last.HasField("task") else last.status_update.status


async def test_an_a2a_client_gets_a_band_agents_reply_streamed(
    live_server: Any, seeded: Any, gateway_key: tuple[str, str]
) -> None:
    async with (
        agents(live_server, seeded, EchoAdapter(), gateway_key) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        base = gateway.server.gateway_url
        peers = (await http.get(f"{base}/peers")).json()
        client = await client_for(f"{base}/agents/echo", http)
        events = await send(client, "hello from A2A")
        await client.close()

    assert {p["slug"] for p in peers["peers"]} == {"echo", "alice"}  # Alice is a peer too
    kinds = [e.WhichOneof("payload") for e in events]
    states = [
        e.task.status.state if e.HasField("task") else e.status_update.status.state for e in events
    ]
    assert kinds[0] == "task" and states[0] == TaskState.TASK_STATE_WORKING
    assert TaskState.TASK_STATE_WORKING in states[1:-1]
    status = final(events)
    assert status.state == TaskState.TASK_STATE_COMPLETED
    assert str(get_message_text(status.message)).endswith("hello from A2A")
    assert str(get_message_text(status.message)).startswith("echo: ")


async def test_one_context_is_one_band_room_and_the_card_names_the_peer(
    live_server: Any, seeded: Any, gateway_key: tuple[str, str]
) -> None:
    context = str(uuid.uuid4())
    async with (
        agents(live_server, seeded, EchoAdapter(), gateway_key) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        url = f"{gateway.server.gateway_url}/agents/{seeded.agent_id}"
        card = (await http.get(f"{url}/.well-known/agent-card.json")).json()
        client = await client_for(url, http, streaming=False)
        first = await send(client, "one", context)
        second = await send(client, "two", context)
        other = await send(client, "three")
        await client.close()
        rooms = await gateway.rest.agent_api_chats.list_agent_chats(page=1, page_size=50)

    assert card["name"] == "Echo" and card["capabilities"]["streaming"] is True
    assert [echoed(final(e)) for e in (first, second, other)] == ["one", "two", "three"]
    assert len(rooms.data) == 2
    assert first[-1].task.context_id == second[-1].task.context_id == context


async def test_a_0_3_client_uses_message_send_and_other_methods_are_closed(
    live_server: Any, seeded: Any, gateway_key: tuple[str, str]
) -> None:
    async with (
        agents(live_server, seeded, EchoAdapter(), gateway_key) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        url = f"{gateway.server.gateway_url}/agents/echo"
        message = {
            "role": "user",
            "parts": [{"kind": "text", "text": "old client"}],
            "messageId": str(uuid.uuid4()),
            "kind": "message",
        }
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
        sent = (await http.post(url, json=body, timeout=60)).json()
        listed = (
            await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tasks/list"})
        ).json()
        legacy = (await http.get(f"{url}/.well-known/agent.json")).json()

    assert sent["result"]["status"]["state"] == "completed"
    assert sent["result"]["status"]["message"]["parts"][0]["text"].endswith("old client")
    assert listed["error"]["code"] == -32601
    assert legacy["name"] == "Echo" and legacy["url"].endswith("/agents/echo")


async def test_no_reply_in_time_fails_the_a2a_task(
    live_server: Any, seeded: Any, gateway_key: tuple[str, str]
) -> None:
    silent = EchoAdapter(behaviour="read_only")
    async with (
        agents(live_server, seeded, silent, gateway_key, response_timeout_s=1.0) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        client = await client_for(f"{gateway.server.gateway_url}/agents/echo", http)
        events = await send(client, "anyone there?")
        await client.close()
    status = final(events)
    assert status.state == TaskState.TASK_STATE_FAILED
    assert get_message_text(status.message) == "No reply from Echo within 1 s"


async def test_a_cancelled_a2a_task_ends_canceled(
    live_server: Any, seeded: Any, gateway_key: tuple[str, str]
) -> None:
    echo = EchoAdapter()
    echo.gate = asyncio.Event()  # Echo holds its reply until released
    async with (
        agents(live_server, seeded, echo, gateway_key) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        client = await client_for(f"{gateway.server.gateway_url}/agents/echo", http)
        message = new_text_message("take your time", role=Role.ROLE_USER)
        stream = client.send_message(SendMessageRequest(message=message))
        first = await anext(stream)
        cancelled = await client.cancel_task(CancelTaskRequest(id=first.task.id))
        rest = [event async for event in stream]
        echo.gate.set()
        await client.close()
    assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
    assert final([first, *rest]).state == TaskState.TASK_STATE_CANCELED


async def test_a_restarted_gateway_finds_a_contexts_room_again(
    live_server: Any, seeded: Any, gateway_key: tuple[str, str]
) -> None:
    context = str(uuid.uuid4())
    async with (
        agents(live_server, seeded, EchoAdapter(), gateway_key) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        client = await client_for(f"{gateway.server.gateway_url}/agents/echo", http)
        await send(client, "before", context)
        await client.close()
    echo = EchoAdapter()
    async with (
        agents(live_server, seeded, echo, gateway_key) as gateway,
        httpx.AsyncClient() as http,
    ):
        assert gateway.server is not None
        client = await client_for(f"{gateway.server.gateway_url}/agents/echo", http)
        events = await send(client, "after", context)
        await client.close()
        rooms = await gateway.rest.agent_api_chats.list_agent_chats(page=1, page_size=50)
    assert echoed(final(events)) == "after"
    assert len(rooms.data) == 1
