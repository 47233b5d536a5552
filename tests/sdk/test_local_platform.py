"""band.testing.LocalPlatform: an agent tested end to end against the real platform in-process."""

from __future__ import annotations

import asyncio

from band import Agent
from band.core import AgentToolsProtocol, SimpleAdapter
from band.core.types import PlatformMessage
from band.testing import LocalPlatform


class Greeter(SimpleAdapter[list[dict[str, object]]]):
    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[dict[str, object]],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        await tools.send_message(f"hello {msg.sender_name}", mentions=[msg.sender_id])


async def test_an_agent_answers_a_mention_on_the_local_platform() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        room = await platform.room(alice, echo, title="lab")
        agent = Agent.create(
            adapter=Greeter(),
            agent_id=echo.id,
            api_key=echo.key,
            rest_url=platform.rest_url,
            ws_url=platform.ws_url,
        )
        await agent.start()
        try:
            await platform.post(alice, room, "hi there", echo)
            for _ in range(200):
                texts = [
                    m for m in await platform.messages(alice, room) if m["sender_id"] == echo.id
                ]
                if texts:
                    break
                await asyncio.sleep(0.05)
            assert [m["content"].endswith("hello Alice") for m in texts] == [True]
            assert texts[0]["metadata"]["mentions"][0]["id"] == alice.id
        finally:
            await agent.stop()
    assert not platform.data_dir.exists()
