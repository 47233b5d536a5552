"""Band's local MCP server: Band's room tools to agents in other processes, SSE and HTTP.

A real ``mcp`` client (in this process, or a child process as an out-of-process agent would
be) lists and calls the tools; the calls land on the room tools the adapter holds for the
named room, and nowhere else.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from band.core.types import Capability
from band.integrations.mcp import (
    BandMCPBackendSettings,
    BandMCPBackendStoppedError,
    BandMCPTransport,
    SharedBandMCPBackend,
)
from band.runtime.mcp_server import LocalMCPServer, build_band_mcp_tool_registrations
from band.runtime.tools.definitions import iter_tool_definitions
from band.testing import FakeAgentTools

from .mcp_caller import call

CALLER = Path(__file__).with_name("mcp_caller.py")
pytestmark = pytest.mark.timeout(60)
ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}


class EscalateInput(BaseModel):
    """Hand the conversation to a person."""

    reason: str


def settings(rooms: dict[str, FakeAgentTools], **kw: Any) -> BandMCPBackendSettings:
    return BandMCPBackendSettings(
        tool_definitions=iter_tool_definitions(capabilities={Capability.MEMORY}),
        get_tools=rooms.get,
        port_min=0,
        port_max=0,
        **kw,
    )


@pytest.fixture
async def rooms() -> dict[str, FakeAgentTools]:
    return {
        room: FakeAgentTools(room_id=room, participants=[ALICE]) for room in ("room-a", "room-b")
    }


@pytest.fixture
async def backend(rooms: dict[str, FakeAgentTools]) -> AsyncIterator[SharedBandMCPBackend]:
    shared = SharedBandMCPBackend(lambda: settings(rooms))
    async with shared:
        yield shared


@pytest.mark.parametrize("transport", [BandMCPTransport.HTTP, BandMCPTransport.SSE])
async def test_each_tool_takes_chat_id_and_runs_on_that_rooms_tools(
    backend: SharedBandMCPBackend, rooms: dict[str, FakeAgentTools], transport: BandMCPTransport
) -> None:
    served = await backend.ensure()
    args = {"chat_id": "room-b", "content": "hi from afar", "mentions": ["alice"]}
    result = await call(served.endpoint(transport), transport.value, "band_send_message", args)

    assert result["is_error"] is False, result
    assert "band_store_memory" in result["tools"] and "band_list_room_files" not in result["tools"]
    for name, schema in result["schemas"].items():
        assert "chat_id" in schema["required"], name
    assert rooms["room-b"].chat == ["hi from afar"]
    assert rooms["room-a"].chat == []
    assert rooms["room-b"].turn.replied
    assert served.allowed_tools[0] == "mcp__band__band_send_message"


async def test_a_room_the_agent_has_no_tools_for_is_refused_and_nothing_is_posted(
    backend: SharedBandMCPBackend, rooms: dict[str, FakeAgentTools]
) -> None:
    served = await backend.ensure()
    args = {"chat_id": "room-elsewhere", "content": "sneaky", "mentions": ["alice"]}
    result = await call(served.endpoint(BandMCPTransport.HTTP), "http", "band_send_message", args)

    assert result["is_error"] is True
    assert "No Band tools for room room-elsewhere" in result["text"]
    assert all(not tools.chat for tools in rooms.values())


async def test_a_call_without_chat_id_or_with_bad_arguments_says_what_is_wrong(
    backend: SharedBandMCPBackend, rooms: dict[str, FakeAgentTools]
) -> None:
    url = (await backend.ensure()).endpoint(BandMCPTransport.HTTP)
    missing = await call(url, "http", "band_send_message", {"content": "x", "mentions": ["alice"]})
    blank = await call(
        url, "http", "band_send_message", {"chat_id": "room-a", "content": " ", "mentions": []}
    )

    assert missing["is_error"] and "chat_id" in missing["text"]
    assert blank["is_error"] and "content" in blank["text"]
    assert all(not tools.chat for tools in rooms.values())


async def test_a_room_bound_server_takes_the_room_from_its_path(
    rooms: dict[str, FakeAgentTools],
) -> None:
    extra = [(EscalateInput, lambda args: f"escalated: {args.reason}")]
    shared = SharedBandMCPBackend(
        lambda: settings(rooms, room_bound=True, additional_tools=tuple(extra))
    )
    async with shared:
        served = await shared.ensure()
        url = served.endpoint(BandMCPTransport.SSE, "room-a")
        sent = await call(
            url, "sse", "band_send_message", {"content": "here", "mentions": ["alice"]}
        )
        custom = await call(url, "sse", "escalate", {"reason": "refund"})
        with pytest.raises(ValueError, match="room-bound"):
            served.endpoint(BandMCPTransport.HTTP)

    assert url.endswith("/rooms/room-a/sse")
    assert not sent["is_error"] and rooms["room-a"].chat == ["here"]
    assert "chat_id" not in sent["schemas"]["band_send_message"].get("properties", {})
    assert custom == {**custom, "is_error": False, "text": "escalated: refund"}
    assert "mcp__band__escalate" in served.allowed_tools


async def test_a_foreign_host_header_is_refused(backend: SharedBandMCPBackend) -> None:
    url = (await backend.ensure()).endpoint(BandMCPTransport.HTTP)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Host": "evil.example:80", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient() as http:
        answer = await http.post(url, json=body, headers=headers)
        health = await http.get(url.replace("/mcp", "/healthz"))
    assert answer.status_code == 421
    assert health.text == "ok"


async def test_a_dead_server_is_replaced_and_a_closed_backend_stays_closed(
    rooms: dict[str, FakeAgentTools],
) -> None:
    shared = SharedBandMCPBackend(lambda: settings(rooms))
    first = await shared.ensure()
    await first.local_server.stop()  # as if it crashed
    second = await shared.ensure()
    assert second is not first and second.is_running
    result = await call(
        second.endpoint(BandMCPTransport.HTTP),
        "http",
        "band_get_participants",
        {"chat_id": "room-a"},
    )
    assert "Alice" in result["text"]

    await shared.close(final=True)
    assert not second.is_running
    with pytest.raises(BandMCPBackendStoppedError):
        await shared.ensure()
    await shared.reopen()
    assert (await shared.ensure()).is_running
    await shared.close(final=True)


async def test_one_agent_tools_object_serves_every_chat_id() -> None:
    tools = FakeAgentTools(room_id="room-x", participants=[ALICE])
    server = LocalMCPServer("band", build_band_mcp_tool_registrations(tools), port_min=0)
    async with server:
        result = await call(server.http_url, "http", "band_no_reply", {"chat_id": "any"})
    assert not result["is_error"] and tools.turn.declined


def test_duplicate_tool_names_are_refused() -> None:
    tools = FakeAgentTools()
    twice = build_band_mcp_tool_registrations(tools) * 2
    with pytest.raises(ValueError, match="Duplicate MCP tool names: band_add_contact"):
        LocalMCPServer("band", twice)


# -- end to end: examples/mcp_tool_server.py, its agent a child process ------------------------

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "mcp_tool_server.py"


def example_adapter(command: list[str]) -> Any:
    spec = importlib.util.spec_from_file_location("mcp_tool_server_example", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ExternalAgentAdapter(command)


async def test_the_examples_child_agent_answers_a_turn_through_the_mcp_server(
    live_server: Any, seeded: Any, tmp_path: Path
) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sdk"))
    from runtime_support import Person, make_agent, until_status

    results = tmp_path / "results.jsonl"
    adapter = example_adapter([sys.executable, str(CALLER), "--agent", str(results)])
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        alice = Person(http, seeded.user_id)
        room = await alice.create_room("MCP", seeded.agent_id)
        agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
        await agent.start()
        try:
            message_id = await alice.say(room, "ship it", seeded.agent_id)
            await until_status(alice, room, message_id, seeded.agent_id, "processed")
            replies = await alice.replies(room, seeded.agent_id)
            errors = await alice.events(room, "error")
        finally:
            await agent.stop(5)

    refused, answered = (json.loads(line) for line in results.read_text().splitlines())
    assert refused["is_error"] and "not-my-room" in refused["text"]
    assert not answered["is_error"]
    assert len(replies) == 1 and replies[0].endswith("Done: it")
    assert errors == []
    assert adapter.mcp.current is None  # the agent's stop closed the server
