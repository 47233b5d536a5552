"""``band-room-view`` as Claude Desktop runs it: a stdio MCP server process, driven by the
``mcp`` package's own client, acting as an agent on our platform (loopback, real WebSocket).

Pins: the four tools and the view resource; joining a room by its title (the transcript,
the mention waiting for the agent, the briefing naming the agent and how to mention Alice);
the monitor waking on a new message and answering quiet with the cursor unchanged; the view's
own loop; arguments refused with what was wrong; a room created and opened as the agent.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from conftest import LiveServer  # noqa: E402

from .room_world import RoomWorld, make_room_world, short_state_dir  # noqa: E402

SERVE = "from band.integrations.desktop_app.cli import entry_point; entry_point()"


@asynccontextmanager
async def room_view(world: RoomWorld, state: Path) -> AsyncIterator[ClientSession]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(state),
        "XDG_CACHE_HOME": str(state),
        "BAND_AGENT_KEY": world.agent_key,
        "BAND_BASE_URL": world.server.url,
        "BAND_ROOM_EVENT_TIMEOUT_S": "2",
    }
    params = StdioServerParameters(command=sys.executable, args=["-c", SERVE], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    result = await session.call_tool(tool, arguments)
    assert not result.isError, result.content
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.structuredContent is not None
    return text, result.structuredContent


async def test_a_desktop_conversation_joins_watches_and_is_woken(live_server: LiveServer) -> None:
    world = await make_room_world(live_server)
    state = short_state_dir()
    try:
        await world.say("Scout, can you draft the launch checklist?")
        async with room_view(world, state) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == {
                "band_join_room",
                "band_create_and_open_room",
                "band_show_room",
                "band_wait_for_room_event",
            }
            join_schema = tools["band_join_room"].inputSchema
            assert "$defs" not in join_schema and join_schema["required"] == ["chat_id"]
            assert join_schema["properties"]["attention"]["enum"] == ["user_first", "room_first"]
            view_uri = (tools["band_join_room"].meta or {})["ui"]["resourceUri"]
            [resource] = (await session.list_resources()).resources
            assert str(resource.uri) == view_uri
            page = (await session.read_resource(resource.uri)).contents[0]
            assert page.mimeType == "text/html;profile=mcp-app"
            assert "band_wait_for_room_event" in page.text  # type: ignore[union-attr]

            summary, joined = await call(session, "band_join_room", chat_id="launch")
            assert joined["chat_id"] == world.room_id
            assert f"Joined live Band room {world.room_id} (resolved from 'launch')" in summary
            assert "1 message(s) address you" in summary
            [pending] = joined["pending_requests"]
            assert pending["content"].endswith("can you draft the launch checklist?")
            assert pending["addressed_to_viewer"] is True
            assert joined["viewer"]["id"] == world.agent_id
            assert "You are Scout" in joined["role_briefing"]
            assert "@alice" in joined["role_briefing"]
            assert joined["transport"]["role"] in {"leader", "follower"}

            # Quiet: the cursor stays where it was.
            quiet, tick = await call(
                session,
                "band_wait_for_room_event",
                chat_id=world.room_id,
                since=joined["next_since"],
                timeout_seconds="1",  # Desktop sends numbers as strings
            )
            assert quiet.startswith("Room quiet.")
            assert tick["messages"] == [] and tick["next_since"] == joined["next_since"]
            assert tick["participants"] == []  # a quiet tick sheds the roster

            await world.say("Also: add the rollback step.")
            woke, event = await call(
                session,
                "band_wait_for_room_event",
                chat_id=world.room_id,
                since=joined["next_since"],
            )
            assert [m["content"] for m in event["messages"]][-1].endswith("rollback step.")
            assert "address you" in woke
            assert event["next_since"] > joined["next_since"]

            # The view's own loop, then a newer view instance takes the display over.
            async def view_tick(instance: str) -> dict[str, Any]:
                _, tick = await call(
                    session,
                    "band_wait_for_room_event",
                    chat_id=world.room_id,
                    since=event["next_since"],
                    timeout_seconds=1,
                    caller="app",
                    instance=instance,
                )
                return tick

            assert (await view_tick("view-1"))["superseded"] is False
            assert (await view_tick("view-2"))["superseded"] is False
            old = await view_tick("view-1")
            assert old["superseded"] is True

            bad = await session.call_tool(
                "band_wait_for_room_event", {"chat_id": world.room_id, "timeout_seconds": 99}
            )
            assert bad.isError
            assert "Invalid arguments for band_wait_for_room_event: timeout_seconds" in (
                bad.content[0].text  # type: ignore[union-attr]
            )
            unknown = await session.call_tool("band_join_room", {"chat_id": "no such room"})
            assert unknown.isError
            assert "No Band room of this agent matches 'no such room'" in (
                unknown.content[0].text  # type: ignore[union-attr]
            )
            assert "'Launch plan'" in unknown.content[0].text  # type: ignore[union-attr]

            created_text, created = await call(
                session, "band_create_and_open_room", attention="room_first"
            )
            assert created_text.startswith(f"Created Band room {created['chat_id']}.")
            assert created["attention"] == "room_first"
            assert "Start monitoring with band_wait_for_room_event now." in created_text
            shown, _ = await call(session, "band_show_room", chat_id=created["chat_id"])
            assert shown.startswith(f"Room view shown again for {created['chat_id']}")
        log = (state / "band-sdk" / "band-room-view.log").read_text()
        assert "join chat=" in log and "launch checklist" not in log
    finally:
        await world.close()
