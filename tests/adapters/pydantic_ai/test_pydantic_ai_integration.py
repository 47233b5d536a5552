"""band.integrations.pydantic_ai and the adapter's band-sdk shape: native tools whose
dependencies are the room's tools, the config, and plain tool functions beside Band's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from adapters.framework_support import Person, ask, require, running

require("pydantic_ai", "BAND_REQUIRE_PYDANTIC_AI")

from pydantic_ai import Agent, RunContext  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from band.adapters import PydanticAIAdapter, PydanticAIAdapterConfig  # noqa: E402
from band.core.protocols import AgentToolsProtocol  # noqa: E402
from band.core.types import AdapterFeatures, Capability, Emit  # noqa: E402
from band.integrations.pydantic_ai.tools import build_band_pydantic_ai_tools  # noqa: E402
from band.testing import (  # noqa: E402
    FakeAgentTools,
    FakeModel,
    TextTurn,
    ToolTurn,
    fake_openai_server,
)

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def model(fake: FakeModel) -> Iterator[OpenAIChatModel]:
    with fake_openai_server(fake) as url:
        provider = OpenAIProvider(base_url=url, api_key="fake")
        yield OpenAIChatModel("fake-model", provider=provider)


def test_the_tools_follow_the_features() -> None:
    plain = {t.name for t in build_band_pydantic_ai_tools(AdapterFeatures())}
    memory = AdapterFeatures(capabilities=frozenset({Capability.MEMORY}))
    with_memory = {t.name for t in build_band_pydantic_ai_tools(memory)}
    assert "band_send_message" in plain and "band_store_memory" not in plain
    assert "band_store_memory" in with_memory


async def test_a_native_tool_runs_in_the_room_given_as_deps(
    fake: FakeModel, model: OpenAIChatModel
) -> None:
    fake.script(
        ToolTurn("band_send_message", {"content": "hi", "mentions": ["alice"]}), TextTurn("done")
    )
    features = AdapterFeatures(emit=frozenset({Emit.TOOL_CALLS}))
    agent: Agent[AgentToolsProtocol, str] = Agent(
        model, deps_type=AgentToolsProtocol, tools=build_band_pydantic_ai_tools(features)
    )
    room = FakeAgentTools()
    await agent.run("say hi", deps=room)
    assert [m["content"] for m in room.messages_sent] == ["hi"]
    assert [e["message_type"] for e in room.events_sent] == ["tool_call", "tool_result"]


def test_exactly_one_model_source(model: OpenAIChatModel) -> None:
    with pytest.raises(ValueError, match=r"exactly one of config\.model or llm"):
        PydanticAIAdapter()
    with pytest.raises(ValueError, match="exactly one"):
        PydanticAIAdapter(PydanticAIAdapterConfig(model="openai-chat:x"), llm=model)
    adapter = PydanticAIAdapter(PydanticAIAdapterConfig(model="openai-chat:x", custom_section="Hi"))
    assert (adapter.llm, adapter.custom_section) == ("openai-chat:x", "Hi")


async def test_a_plain_tool_function_is_offered_beside_bands(
    fake: FakeModel, model: OpenAIChatModel, live_server: Any, seeded: Any, alice: Person
) -> None:
    seen: list[str] = []

    def weather(city: str) -> str:
        """Today's weather in a city."""
        seen.append(city)
        return f"sunny in {city}"

    async def room_of(ctx: RunContext[AgentToolsProtocol]) -> str:
        """The id of this room."""
        return ctx.deps.room_id if hasattr(ctx.deps, "room_id") else "?"

    fake.script(
        ToolTurn("weather", {"city": "Oslo"}),
        ToolTurn("room_of", {}),
        ToolTurn("band_send_message", {"content": "sunny", "mentions": [alice.user_id]}),
        TextTurn(""),
    )
    adapter = PydanticAIAdapter(llm=model, additional_tools=[weather, room_of])
    room = await alice.create_room("Weather", seeded.agent_id)
    async with running(live_server, seeded, adapter):
        await ask(alice, room, "weather?", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
    assert seen == ["Oslo"] and replies and "sunny" in replies[0]
    names = {t["function"]["name"] for t in fake.requests[0].body.get("tools", [])}
    assert {"weather", "room_of", "band_send_message"} <= names
    assert room in " ".join(str(m) for m in fake.requests[2].body["messages"])
