"""Contact events of a real Agent on the local platform (band.runtime.contacts, contact_handler).

CALLBACK hands each event to code with ContactTools; HUB_ROOM creates a hub room and puts each
event in it as a message from "Contact Events" for the adapter to act on; broadcasts reach
every room as a system note."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

from band import Agent
from band.client.rest import AsyncRestClient
from band.core import AgentToolsProtocol, SimpleAdapter
from band.core.types import PlatformMessage
from band.platform.event import ContactRequestReceivedEvent
from band.runtime.contact_tools import ContactTools
from band.runtime.contacts import ContactEventConfig, ContactEventStrategy
from band.runtime.tools import HumanTools
from band.testing import LocalPlatform
from band_server.testing.local_platform import Identity


class HubDecider(SimpleAdapter[list[dict[str, Any]]]):
    """Approves every contact request it reads in the hub room; records what it saw."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str | None, str | None]] = []

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[dict[str, Any]],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        self.seen.append((msg.content, msg.sender_name, contacts_msg))
        found = re.search(r"Request ID: (\S+)", msg.content)
        if found:
            await tools.respond_contact_request("approve", request_id=found.group(1))


async def _eventually(check: Callable[[], Awaitable[bool]], limit: float = 20) -> None:
    async with asyncio.timeout(limit):
        while not await check():  # noqa: ASYNC110
            await asyncio.sleep(0.05)


@asynccontextmanager
async def running(
    platform: LocalPlatform, agent: Identity, adapter: Any, config: ContactEventConfig
) -> AsyncIterator[Agent]:
    host = Agent.create(
        adapter=adapter,
        agent_id=agent.id,
        api_key=agent.key,
        rest_url=platform.rest_url,
        ws_url=platform.ws_url,
        contact_config=config,
    )
    await host.start()
    try:
        yield host
    finally:
        await host.stop()


def _person_tools(platform: LocalPlatform, who: Identity) -> HumanTools:
    return HumanTools(AsyncRestClient(base_url=platform.rest_url, api_key=who.key))


async def _is_contact(person: HumanTools, agent: Identity) -> bool:
    listed = await person.list_my_contacts()
    return agent.handle in {c.handle for c in listed.data}


def test_callback_needs_its_callback_and_a_hub_task_must_be_a_uuid() -> None:
    with pytest.raises(ValueError, match="requires on_event"):
        ContactEventConfig(strategy=ContactEventStrategy.CALLBACK)
    with pytest.raises(ValueError, match="must be a UUID"):
        ContactEventConfig(strategy=ContactEventStrategy.HUB_ROOM, hub_task_id="task-1")
    assert not ContactEventConfig().active


async def test_a_callback_approves_a_persons_request() -> None:
    received: list[str] = []

    async def approve(event: Any, tools: ContactTools) -> None:
        if isinstance(event, ContactRequestReceivedEvent):
            received.append(event.payload.from_handle)
            await tools.respond_contact_request("approve", request_id=event.payload.id)

    config = ContactEventConfig(strategy=ContactEventStrategy.CALLBACK, on_event=approve)
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        bob = await platform.person("bob", "Bob")
        echo = await platform.agent(alice, "Echo")
        async with running(platform, echo, HubDecider(), config) as host:
            assert host.is_contacts_subscribed
            person = _person_tools(platform, bob)
            await person.create_contact_request(echo.handle, "hello echo")
            await _eventually(lambda: _is_contact(person, echo))
            await person.rest.aclose()
    assert received == ["bob"]


async def test_the_hub_room_gets_each_request_and_the_agent_decides_there() -> None:
    adapter = HubDecider()
    config = ContactEventConfig(strategy=ContactEventStrategy.HUB_ROOM, broadcast_changes=True)
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        bob = await platform.person("bob", "Bob")
        echo = await platform.agent(alice, "Echo")
        async with running(platform, echo, adapter, config) as host:
            hub = host.runtime.hub_room_id
            assert hub is not None
            person = _person_tools(platform, bob)
            await person.create_contact_request(echo.handle, "let's talk")
            await _eventually(lambda: _is_contact(person, echo))
            await person.rest.aclose()
    content, sender, contacts_msg = adapter.seen[0]
    assert content.startswith("[Contact Request] Bob (@bob) wants to connect.")
    assert 'Message: "let\'s talk"' in content
    assert sender == "Contact Events"
    assert contacts_msg is not None and "Contacts hub" in contacts_msg  # the hub's brief
