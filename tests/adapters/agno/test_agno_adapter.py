"""AgnoAdapter beyond the conformance suite: its converter, reasoning as thoughts, the
developer's own Agno tools and the agent it takes over."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adapters.framework_support import require

require("agno", "BAND_REQUIRE_AGNO")

from agno.agent import Agent  # noqa: E402
from agno.models.openai import OpenAIChat  # noqa: E402

from adapters.turn_support import load_example, room_tools, turn  # noqa: E402
from band.adapters import AgnoAdapter  # noqa: E402
from band.converters import AgnoHistoryConverter  # noqa: E402
from band.core.types import Emit  # noqa: E402
from band.runtime.custom_tools import declares_turn_effect  # noqa: E402
from band.runtime.tools import TurnEffect  # noqa: E402
from band.testing import (  # noqa: E402
    FakeModel,
    Reply,
    ToolCall,
    events_of_type,
)

pytestmark = pytest.mark.timeout(60)


def agno_agent(base_url: str, **kwargs: Any) -> Agent:
    model = OpenAIChat(id="fake-model", api_key="fake", base_url=base_url, max_retries=0)
    return Agent(model=model, **kwargs)


def test_history_becomes_agno_messages_marked_as_history() -> None:
    call = {"name": "band_lookup_peers", "args": {"page": 2}, "tool_call_id": "c1"}
    result = {"name": "band_lookup_peers", "output": "[]", "tool_call_id": "c1", "is_error": True}
    raw = [
        {"message_type": "text", "content": "hi", "sender_name": "Alice", "sender_type": "User"},
        {"message_type": "tool_call", "content": json.dumps(call)},
        {"message_type": "tool_result", "content": json.dumps(result)},
        {"message_type": "text", "content": "Hello!", "sender_name": "Bot", "sender_type": "Agent"},
    ]
    messages = AgnoHistoryConverter("Bot").convert(raw)
    assert [m.role for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[0].content == "[Alice]: hi"
    assert messages[1].tool_calls and messages[1].tool_calls[0]["id"] == "c1"
    assert messages[2].tool_call_id == "c1" and messages[2].tool_call_error is True
    assert all(m.from_history for m in messages)


async def test_reasoning_becomes_a_thought_when_asked(base_url: str, fake: FakeModel) -> None:
    args = {"content": "Done.", "mentions": ["alice"]}
    call = ToolCall("band_send_message", args)
    fake.queue(Reply(reasoning="Alice wants a greeting.", tool_calls=(call,))).reply("")
    tools = room_tools()
    adapter = AgnoAdapter(agent=agno_agent(base_url), emit=[Emit.THOUGHTS, Emit.TOOL_CALLS])
    await turn(adapter, tools, "greet me")
    assert [e["content"] for e in events_of_type(tools, "thought")] == ["Alice wants a greeting."]
    assert tools.chat == ["Done."]


async def test_the_agents_own_tool_declared_to_act_settles_the_turn(
    base_url: str, fake: FakeModel
) -> None:
    @declares_turn_effect(TurnEffect.ACT)
    def open_ticket(summary: str) -> str:
        """Open a support ticket."""
        return f"ticket opened: {summary}"

    fake.call_tool("open_ticket", {"summary": "printer on fire"}).reply("")
    tools = room_tools()
    adapter = AgnoAdapter(agent=agno_agent(base_url, tools=[open_ticket]))
    await turn(adapter, tools, "help")
    assert tools.turn.complete and not tools.messages_sent
    offered = fake.requests[0].tool_names
    assert "open_ticket" in offered and "band_send_message" in offered


async def test_band_prompt_comes_before_the_developers_description(base_url: str) -> None:
    agent = agno_agent(base_url, description="Always answer in French.")
    adapter = AgnoAdapter(agent=agent)
    await adapter.on_started("Bot", "A test bot")
    assert adapter.agent is agent
    assert agent.description.startswith("You are Bot, A test bot.")
    assert agent.description.endswith("Always answer in French.")


async def test_a_model_error_fails_the_turn(base_url: str, fake: FakeModel) -> None:
    fake.fail(500)
    with pytest.raises(Exception, match=r"scripted failure|500"):
        await turn(AgnoAdapter(agent=agno_agent(base_url)), room_tools(), "hello")


async def test_the_example_answers_a_mention(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "fake")
    monkeypatch.setenv("OPENAI_MODEL", "fake-model")
    tools = room_tools()
    await turn(load_example("agno_agent").build_adapter(), tools, "hello example")
    assert len(tools.chat) == 1 and "You said: hello example" in tools.chat[0]
