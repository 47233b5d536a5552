"""``LettaAdapter`` against a real Letta server (0.16.6, PostgreSQL with pgvector), offline.

The server's model and embeddings are the test's :class:`FakeModel`; it calls Band's tools
through the adapter's MCP server (or an external one) as a real deployment does. The agent runs
on the live platform and Alice talks to it over REST.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from ..framework_support import Person, alice, ask, require, running

require("letta_client", "BAND_REQUIRE_LETTA")

from runtime_support import until, until_status  # noqa: E402

from band.adapters.letta import LettaAdapter, LettaAdapterConfig, LettaMCPConfig  # noqa: E402
from band.integrations.letta.orgscope import resolve_org_scoped_headers  # noqa: E402
from band.integrations.mcp import (  # noqa: E402
    BandMCPBackendSettings,
    BandMCPTransport,
    SharedBandMCPBackend,
)
from band.platform.rest import BandRestClient  # noqa: E402
from band.runtime.tools import AgentTools  # noqa: E402
from band.runtime.tools.definitions import iter_tool_definitions  # noqa: E402
from band.testing import FakeModel, ModelRequest, Reply  # noqa: E402

from .letta_server import EMBEDDING, MODEL, LettaServer, letta_server  # noqa: E402

__all__ = ["alice", "letta_server"]
pytestmark = pytest.mark.timeout(300)


def config(server: LettaServer, **fields: Any) -> LettaAdapterConfig:
    fields.setdefault("consolidate_memory_on_cleanup", False)
    return LettaAdapterConfig(base_url=server.url, model=MODEL, embedding=EMBEDDING, **fields)


async def letta_tasks(person: Person, room: str) -> list[dict[str, Any]]:
    return [
        t["metadata"]
        for t in await person.events(room, "task")
        if "letta_agent_id" in (t.get("metadata") or {})
    ]


async def letta_agent(server: LettaServer, agent_name: str, agent_id: str) -> int:
    """The status Letta answers for ``GET /v1/agents/<id>`` as the adapter's own user."""
    headers = await resolve_org_scoped_headers(
        base_url=server.url, agent_name=agent_name, bearer_token=None
    )
    async with httpx.AsyncClient(base_url=server.url, headers=headers) as http:
        return (await http.get(f"/v1/agents/{agent_id}")).status_code


async def test_a_mention_is_answered_through_bands_tools_called_by_the_letta_server(
    live_server: Any, seeded: Any, alice: Person, letta_server: LettaServer
) -> None:
    room = await alice.create_room("Letta", seeded.agent_id)
    answer = {"content": "Hi Alice! You said: hello Letta", "mentions": ["alice"], "chat_id": room}
    fake = letta_server.use(FakeModel())
    fake.call_tool("band_get_participants", {"chat_id": room})
    fake.call_tool("band_send_message", answer)
    async with running(live_server, seeded, LettaAdapter(config(letta_server))):
        await ask(alice, room, "hello Letta", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
        calls = await alice.events(room, "tool_call")
        results = await alice.events(room, "tool_result")
        tasks = await letta_tasks(alice, room)
        usage = [
            t["metadata"] for t in await alice.events(room, "task") if "band_usage" in t["metadata"]
        ]
    assert len(replies) == 1 and replies[0].endswith("Hi Alice! You said: hello Letta")
    first = fake.requests[0]
    assert {"band_send_message", "band_get_participants"} <= set(first.tool_names)
    assert f"chat_id {room}" in first.system  # the per-room agent's persona names its room
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_get_participants"
    assert call["tool_call_id"] == result["tool_call_id"]
    assert "Alice" in result["output"]
    assert [c["name"] for c in map(lambda e: json.loads(e["content"]), calls)] == [
        "band_get_participants"
    ]  # the send tool is silent: its message is the report
    assert len(tasks) == 1 and tasks[0]["letta_agent_id"].startswith("agent-")
    assert usage and usage[0]["band_usage"]["input_tokens"] > 0


async def test_a_restarted_agent_resumes_the_same_letta_agent_and_its_memory(
    live_server: Any, seeded: Any, alice: Person, letta_server: LettaServer
) -> None:
    room = await alice.create_room("Resume", seeded.agent_id)
    letta_server.use(FakeModel())
    async with running(live_server, seeded, LettaAdapter(config(letta_server))):
        await ask(alice, room, "remember the number 7", seeded.agent_id)
    fake = letta_server.use(FakeModel())
    async with running(live_server, seeded, LettaAdapter(config(letta_server))):
        await ask(alice, room, "what was it?", seeded.agent_id)
    agents = {t["letta_agent_id"] for t in await letta_tasks(alice, room)}
    assert len(agents) == 1
    seen = " ".join(fake.requests[0].texts("user"))
    assert "remember the number 7" in seen and "what was it?" in seen


async def test_shared_mode_keeps_one_agent_and_a_conversation_per_room(
    live_server: Any, seeded: Any, alice: Person, letta_server: LettaServer
) -> None:
    red = await alice.create_room("Red", seeded.agent_id)
    blue = await alice.create_room("Blue", seeded.agent_id)
    fake = letta_server.use(FakeModel())
    async with running(live_server, seeded, LettaAdapter(config(letta_server, mode="shared"))):
        await ask(alice, red, "the secret is crimson", seeded.agent_id)
        await ask(alice, blue, "the secret is azure", seeded.agent_id)
        await ask(alice, red, "and again in red", seeded.agent_id)
    red_state, blue_state = await letta_tasks(alice, red), await letta_tasks(alice, blue)
    assert red_state[0]["letta_agent_id"] == blue_state[0]["letta_agent_id"]
    assert red_state[0]["letta_conversation_id"] != blue_state[0]["letta_conversation_id"]
    for request in fake.requests:
        text = " ".join(request.texts("user"))
        assert not ("crimson" in text and "azure" in text)
    assert any(
        "crimson" in " ".join(r.texts("user")) and "again in red" in " ".join(r.texts("user"))
        for r in fake.requests
    )
    assert len(await alice.replies(red, seeded.agent_id)) == 2


async def test_plain_text_is_relayed_unless_auto_relay_is_off(
    live_server: Any, seeded: Any, alice: Person, letta_server: LettaServer
) -> None:
    def talker(request: ModelRequest) -> Any:
        return Reply(text="Just text, no tool.")

    room = await alice.create_room("Relay", seeded.agent_id)
    letta_server.use(FakeModel(talker))
    async with running(live_server, seeded, LettaAdapter(config(letta_server))):
        await ask(alice, room, "say something", seeded.agent_id)
        relayed = await alice.replies(room, seeded.agent_id)
    quiet = await alice.create_room("Quiet", seeded.agent_id)
    letta_server.use(FakeModel(talker))
    adapter = LettaAdapter(config(letta_server, auto_relay=False))
    async with running(live_server, seeded, adapter):
        message_id = await alice.say(quiet, "say something", seeded.agent_id)
        await until_status(alice, quiet, message_id, seeded.agent_id, "failed")
        errors = await until(lambda: alice.events(quiet, "error"))
    assert relayed[-1].endswith("Just text, no tool.")
    assert await alice.replies(quiet, seeded.agent_id) == []
    assert errors[0]["metadata"]["failure"]["provider"] == "band-runtime"


async def test_persona_and_memory_blocks_reach_the_model(
    live_server: Any, seeded: Any, alice: Person, letta_server: LettaServer
) -> None:
    room = await alice.create_room("Blocks", seeded.agent_id)
    fake = letta_server.use(FakeModel())
    blocks = ({"label": "project", "value": "The project is called Falcon."},)
    settings = config(
        letta_server, persona="You are Letty, the Falcon helper.", memory_blocks=blocks
    )
    async with running(live_server, seeded, LettaAdapter(settings)):
        await ask(alice, room, "which project?", seeded.agent_id)
    system = fake.requests[0].system
    assert "You are Letty, the Falcon helper." in system
    assert "The project is called Falcon." in system


async def test_leaving_a_room_consolidates_memory_and_deletes_the_agent(
    live_server: Any, seeded: Any, alice: Person, letta_server: LettaServer
) -> None:
    room = await alice.create_room("Leave", seeded.agent_id)
    fake = letta_server.use(FakeModel())
    settings = config(
        letta_server, delete_agents_on_cleanup=True, consolidate_memory_on_cleanup=True
    )
    async with running(live_server, seeded, LettaAdapter(settings)):
        await ask(alice, room, "hello", seeded.agent_id)
        agent_id = (await letta_tasks(alice, room))[0]["letta_agent_id"]
        await alice.remove(room, seeded.agent_id)
        await until(
            lambda: any("You are leaving" in " ".join(r.texts("user")) for r in fake.requests)
        )
        gone = await until(lambda: _is_gone(letta_server, agent_id), limit=60)
    assert gone


async def _is_gone(server: LettaServer, agent_id: str) -> bool:
    return await letta_agent(server, "Echo", agent_id) == 404


@dataclass
class ExternalMcp:
    """A Band MCP server run apart from the adapter (as band-mcp would be), for the seeded
    agent's key: the rooms it is told of, each with its roster."""

    url: str
    rest: BandRestClient
    agent_id: str
    rooms: dict[str, AgentTools] = field(default_factory=dict)

    async def serve(self, room_id: str) -> None:
        roster = await self.rest.get_participants(room_id)
        self.rooms[room_id] = AgentTools(
            self.rest, room_id, participants=roster, agent_id=self.agent_id
        )


@pytest.fixture
async def external_mcp(live_server: Any, seeded: Any) -> AsyncIterator[ExternalMcp]:
    rest = BandRestClient(live_server.url, seeded.agent_key)
    rooms: dict[str, AgentTools] = {}
    settings = BandMCPBackendSettings(
        tool_definitions=iter_tool_definitions(), get_tools=rooms.get, port_min=0, port_max=0
    )
    async with SharedBandMCPBackend(lambda: settings) as backend:
        url = (await backend.ensure()).endpoint(BandMCPTransport.SSE)
        yield ExternalMcp(url, rest, seeded.agent_id, rooms)
    await rest.aclose()


async def test_an_external_band_mcp_server_can_serve_the_tools(
    live_server: Any,
    seeded: Any,
    alice: Person,
    letta_server: LettaServer,
    external_mcp: ExternalMcp,
) -> None:
    room = await alice.create_room("External", seeded.agent_id)
    await external_mcp.serve(room)
    letta_server.use(FakeModel())
    mcp = LettaMCPConfig(mode="external", server_url=external_mcp.url, server_name="band-external")
    async with running(live_server, seeded, LettaAdapter(config(letta_server, mcp=mcp))):
        await ask(alice, room, "hello from outside", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
        errors = await alice.events(room, "error")
    assert len(replies) == 1 and replies[0].endswith("hello from outside")
    assert errors == []  # the send through the other server counted as the turn's reply


def test_letta_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LETTA_BASE_URL", "http://letta.internal:8283")
    monkeypatch.setenv("LETTA_API_KEY", "sk-let")
    monkeypatch.setenv("LETTA_MODE", "shared")
    settings = LettaAdapterConfig(model="openai/gpt-5.4-mini")
    assert (settings.base_url, settings.provider_key, settings.mode) == (
        "http://letta.internal:8283",
        "sk-let",
        "shared",
    )
    assert settings.scoped and "sk-let" not in repr(settings)
    explicit = LettaAdapterConfig(base_url="https://api.letta.com")
    assert explicit.base_url == "https://api.letta.com" and not explicit.scoped
