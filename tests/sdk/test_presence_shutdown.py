"""``RoomPresence`` with its documented callbacks, and ``GracefulShutdown`` stopping an agent
on a signal while ``agent.run(install_signal_handlers=False)`` serves."""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import pytest
from runtime_support import EchoAdapter, until

from band import Agent, AgentConfig, BandLink, GracefulShutdown, PlatformEvent, RoomPresence
from band.platform.event import MessageEvent
from band_server.testing.local_platform import LocalPlatform

pytestmark = pytest.mark.timeout(60)


async def test_room_presence_reports_joins_events_leaves_and_stop() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        first = await platform.room(alice, echo, title="First")
        link = BandLink(echo.id, echo.key, platform.ws_url, platform.rest_url)
        joined: list[tuple[str, Any]] = []
        left: list[str] = []
        said: list[tuple[str, str]] = []

        async def on_joined(room_id: str, payload: dict[str, Any]) -> None:
            joined.append((room_id, payload.get("title")))

        async def on_left(room_id: str) -> None:
            left.append(room_id)

        async def on_event(room_id: str, event: PlatformEvent) -> None:
            if isinstance(event, MessageEvent) and event.payload is not None:
                said.append((room_id, event.payload.content.split()[-1]))

        presence = RoomPresence(link)
        presence.on_room_joined = on_joined
        presence.on_room_left = on_left
        presence.on_room_event = on_event
        await presence.start()  # connects the link itself
        try:
            assert joined == [(first, "First")]
            with pytest.raises(RuntimeError):
                await presence.start()
            second = await platform.room(alice, echo, title="Second")
            await until(lambda: len(joined) == 2)
            assert joined[1][0] == second
            await platform.post(alice, second, "hello there", echo)
            await until(lambda: said == [(second, "there")])

            http = platform._http(alice)
            r = await http.delete(f"/api/v1/me/chats/{first}/participants/{echo.id}")
            assert r.status_code in (200, 204), r.text
            await until(lambda: left == [first])
        finally:
            await presence.stop()
        assert left == [first, second]  # stop leaves what is left
        assert link.is_connected  # ...and keeps the link for reuse
        await link.disconnect()


async def test_graceful_shutdown_stops_the_agent_on_a_signal() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        await platform.room(alice, echo)
        agent = Agent.create(
            adapter=EchoAdapter(),
            agent_id=echo.id,
            api_key=echo.key,
            rest_url=platform.rest_url,
            ws_url=platform.ws_url,
            config=AgentConfig(single_instance=False),
        )
        signals: list[int] = []
        async with GracefulShutdown(agent, timeout=5, on_signal=signals.append) as shutdown:
            assert signal.SIGHUP in shutdown._installed  # the handler owns it: safe to send
            running = asyncio.create_task(agent.run(install_signal_handlers=False))
            await until(lambda: agent.is_running)
            os.kill(os.getpid(), signal.SIGHUP)
            os.kill(os.getpid(), signal.SIGHUP)  # a second signal during shutdown is ignored
            await asyncio.wait_for(running, 20)  # run() returns: the signal stopped the agent
        assert signals == [signal.SIGHUP]
        assert not agent.is_running
