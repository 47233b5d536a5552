"""band.integrations.langgraph as band-sdk lays it out: a decline ends a ``create_agent`` run,
a graph offered as a tool, custom tools as LangChain tools, message formatters, and the
adapter's config."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from adapters.framework_support import require

require("langgraph", "BAND_REQUIRE_LANGGRAPH")

from langchain.agents import create_agent  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from typing_extensions import TypedDict  # noqa: E402

from band.adapters.langgraph import LangGraphAdapter, LangGraphAdapterConfig  # noqa: E402
from band.client.streaming import MessageCreatedPayload  # noqa: E402
from band.core.turn import Turn  # noqa: E402
from band.integrations.langgraph import (  # noqa: E402
    agent_tools_to_langchain,
    default_messages_state_formatter,
    graph_as_tool,
)
from band.integrations.langgraph.decline import DeclineMiddleware, terminal_decline  # noqa: E402
from band.integrations.langgraph.langchain_tools import custom_tool_def_to_langchain  # noqa: E402
from band.runtime.custom_tools import declares_turn_effect  # noqa: E402
from band.testing import (  # noqa: E402
    FakeAgentTools,
    FakeModel,
    TextTurn,
    ToolTurn,
    fake_openai_server,
)
from band_protocol import TurnEffect  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def llm(fake: FakeModel) -> Iterator[ChatOpenAI]:
    with fake_openai_server(fake) as url:
        yield ChatOpenAI(model="fake-model", api_key="fake", base_url=url, max_retries=0)


async def test_a_successful_decline_ends_a_create_agent_run(
    fake: FakeModel, llm: ChatOpenAI
) -> None:
    fake.script(ToolTurn("band_no_reply", {"reason": "not for me"}), TextTurn("never asked"))
    tools = agent_tools_to_langchain(FakeAgentTools())
    agent = create_agent(model=llm, tools=tools, middleware=[DeclineMiddleware()])
    state = await agent.ainvoke({"messages": [{"role": "user", "content": "psst"}]})
    assert len(fake.requests) == 1  # the model is not asked again after declining
    assert isinstance(state["messages"][-1], ToolMessage)


def test_a_decline_counts_only_when_its_whole_batch_succeeded() -> None:
    call = {"name": "band_no_reply", "args": {}, "id": "c1", "type": "tool_call"}
    other = {"name": "band_get_participants", "args": {}, "id": "c2", "type": "tool_call"}
    asked = AIMessage(content="", tool_calls=[call, other])
    declined = ToolMessage(content='{"status": "no_reply"}', tool_call_id="c1", name=call["name"])
    fine = ToolMessage(content="[]", tool_call_id="c2", name=other["name"])
    failed = ToolMessage(content="boom", tool_call_id="c2", name=other["name"], status="error")
    assert terminal_decline([asked, declined, fine])
    assert not terminal_decline([asked, declined])  # a call still unanswered
    assert not terminal_decline([asked, declined, failed])


async def test_a_graph_is_a_tool_with_its_own_or_the_rooms_thread() -> None:
    class Sum(TypedDict, total=False):
        a: int
        b: int
        total: int
        calls: int

    def add(state: Sum) -> dict[str, int]:
        return {"total": state["a"] + state["b"], "calls": state.get("calls", 0) + 1}

    builder = StateGraph(Sum)
    builder.add_node("add", add)
    builder.add_edge(START, "add")
    builder.add_edge("add", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    shown = lambda state: {"total": state["total"], "calls": state["calls"]}  # noqa: E731
    fresh = graph_as_tool(graph, "adder", "Adds.", {"a": "first", "b": "second"}, shown)
    shared = graph_as_tool(graph, "adder2", "Adds.", {"a": "x", "b": "y"}, shown, False)
    config = {"configurable": {"thread_id": "room-1"}}
    for _ in range(2):
        first = json.loads(await fresh.ainvoke({"a": 2, "b": 3}, config))
        remembered = json.loads(await shared.ainvoke({"a": 2, "b": 3}, config))
    assert first == {"total": 5, "calls": 1}  # a fresh thread each call
    assert remembered == {"total": 5, "calls": 2}  # the room's thread remembers
    assert "Parameters:\n  - a: first" in fresh.description
    with pytest.raises(ValueError, match="needs a name"):
        graph_as_tool(graph, "", "x", {"a": "b"})


async def test_a_custom_tool_records_its_effect_on_the_turn() -> None:
    class EscalateInput(BaseModel):
        """Hand the conversation to a person."""

        reason: str

    @declares_turn_effect(TurnEffect.ACT)
    def escalate(args: EscalateInput) -> str:
        return f"escalated: {args.reason}"

    turn = Turn()
    tool = custom_tool_def_to_langchain((EscalateInput, escalate), turn=turn)
    assert (tool.name, tool.description) == ("escalate", "Hand the conversation to a person.")
    call = {"type": "tool_call", "id": "c1", "name": "escalate", "args": {"reason": "angry"}}
    ok = await tool.ainvoke(call)
    bad = await tool.ainvoke({**call, "id": "c2", "args": {}})
    assert ok.content == "escalated: angry" and TurnEffect.ACT in turn.effects
    assert bad.status == "error" and "reason: Field required" in bad.content


def test_the_default_formatter_says_who_wrote_the_message() -> None:
    message = MessageCreatedPayload.model_validate(
        {
            "id": "m1",
            "chat_room_id": "r1",
            "content": "Hello!",
            "message_type": "text",
            "sender_id": "u1",
            "sender_type": "User",
            "sender_name": "Ann",
            "inserted_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "metadata": {"mentions": [], "status": "sent"},
        }
    )
    assert default_messages_state_formatter(message, "Ann") == {
        "messages": [{"role": "user", "content": "Message from Ann (User, ID: u1): Hello!"}]
    }


def test_the_config_sets_the_prompt_and_limits(llm: ChatOpenAI) -> None:
    config = LangGraphAdapterConfig(custom_section="Be brief.", recursion_limit=7)
    adapter = LangGraphAdapter(config, llm=llm)
    assert (adapter.custom_section, adapter.recursion_limit) == ("Be brief.", 7)
    assert adapter.inject_system_prompt  # llm=: the adapter owns the prompt
    own = LangGraphAdapter(graph_factory=lambda tools: None)
    assert not own.inject_system_prompt  # a graph of your own brings its own
    assert LangGraphAdapter(LangGraphAdapterConfig(inject_system_prompt=True), graph=object())
    with pytest.raises(ValueError):
        LangGraphAdapterConfig(recursion_limit=0)
