"""LangGraphAdapter against the live platform, with a ChatOpenAI model on the fake endpoint."""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.framework_support import Person, ask, require, running

require("langgraph", "BAND_REQUIRE_LANGGRAPH")

from langchain_core.tools import StructuredTool  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

from band.adapters import LangGraphAdapter  # noqa: E402
from band.converters import LangChainHistoryConverter  # noqa: E402
from band.core.exceptions import BandConfigError  # noqa: E402
from band.core.types import AdapterFeatures, Capability  # noqa: E402
from band.integrations.langgraph.langchain_tools import agent_tools_to_langchain  # noqa: E402
from band.testing import FakeAgentTools, FakeModel, fake_openai_server  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def base_url(fake: FakeModel) -> Iterator[str]:
    with fake_openai_server(fake) as url:
        yield url


def adapter(base_url: str, **features: Any) -> LangGraphAdapter:
    llm = ChatOpenAI(
        model="fake-model", api_key="fake", base_url=base_url, max_retries=0, stream_usage=True
    )
    return LangGraphAdapter(llm=llm, **features)


async def test_a_mention_is_answered_with_a_reply_that_mentions_the_sender(
    base_url: str, live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Reply", seeded.agent_id)
    async with running(live_server, seeded, adapter(base_url)):
        await ask(alice, room, "hello graph", seeded.agent_id)
        listing = await alice.listing(room)
    replies = [
        m for m in listing if m["sender_id"] == seeded.agent_id and m["message_type"] == "text"
    ]
    assert len(replies) == 1
    assert "You said: hello graph" in replies[0]["content"]
    assert seeded.user_id in json.dumps(replies[0].get("metadata")) + json.dumps(
        replies[0].get("mentions")
    )


async def test_tool_events_pair_by_the_model_call_id(
    base_url: str, fake: FakeModel, live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Tools", seeded.agent_id)
    async with running(live_server, seeded, adapter(base_url)):
        await ask(alice, room, "hi", seeded.agent_id)
        calls = [json.loads(e["content"]) for e in await alice.events(room, "tool_call")]
        results = [json.loads(e["content"]) for e in await alice.events(room, "tool_result")]
    assert [c["name"] for c in calls] == [r["name"] for r in results] == ["band_send_message"]
    assert calls[0]["tool_call_id"] == results[0]["tool_call_id"]
    # the id is the model's own, so replayed history pairs with what the model saw
    sent = fake.requests[-1].body["messages"]
    assert calls[0]["tool_call_id"] in json.dumps(sent)
    assert calls[0]["args"]["mentions"]


async def test_two_rooms_keep_separate_threads(
    base_url: str, fake: FakeModel, live_server: Any, seeded: Any, alice: Person
) -> None:
    red = await alice.create_room("Red", seeded.agent_id)
    blue = await alice.create_room("Blue", seeded.agent_id)
    async with running(live_server, seeded, adapter(base_url)):
        await asyncio.gather(
            ask(alice, red, "the secret is crimson", seeded.agent_id),
            ask(alice, blue, "the secret is azure", seeded.agent_id),
        )
        await ask(alice, red, "and again in red", seeded.agent_id)
    for request in fake.requests:
        text = " ".join(request.texts("user"))
        assert not ("crimson" in text and "azure" in text)
    assert any(
        "crimson" in " ".join(r.texts("user")) and "again in red" in " ".join(r.texts("user"))
        for r in fake.requests
    )


def test_unsupported_emit_is_refused(base_url: str) -> None:
    with pytest.raises(BandConfigError) as info:
        adapter(base_url, emit=["thoughts"])
    assert str(info.value) == (
        "LangGraphAdapter does not support emit kind(s): thoughts; supported: tool_calls, usage"
    )


def test_exactly_one_of_llm_graph_factory_or_graph() -> None:
    with pytest.raises(ValueError, match="Set exactly one of llm, graph_factory or graph"):
        LangGraphAdapter()


async def test_agent_tools_to_langchain_follows_features_and_runs_in_the_room() -> None:
    tools = FakeAgentTools()
    memory = AdapterFeatures(capabilities=frozenset({Capability.MEMORY}))
    lc = agent_tools_to_langchain(tools, features=memory)
    assert all(isinstance(t, StructuredTool) for t in lc)
    names = {t.name for t in lc}
    assert {"band_send_message", "band_store_memory"} <= names
    assert "band_list_contacts" not in names
    send = next(t for t in lc if t.name == "band_send_message")
    call = {"content": "hi", "mentions": ["alice"]}
    ok = await send.ainvoke({"type": "tool_call", "id": "c1", "name": send.name, "args": call})
    bad = await send.ainvoke({"type": "tool_call", "id": "c2", "name": send.name, "args": {}})
    assert ok.status == "success" and bad.status == "error"
    assert "Invalid arguments for band_send_message" in bad.content


def test_the_bool_overrides_are_deprecated() -> None:
    tools = FakeAgentTools()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lc = agent_tools_to_langchain(tools, include_memory_tools=True, include_contacts=False)
    assert [w.category for w in caught] == [DeprecationWarning, DeprecationWarning]
    names = {t.name for t in lc}
    assert "band_store_memory" in names and "band_list_contacts" not in names


def test_history_converter_pairs_calls_with_results() -> None:
    converter = LangChainHistoryConverter("Echo")
    call = {"name": "band_send_message", "args": {"content": "Hi"}, "tool_call_id": "c1"}
    result = {"name": "band_send_message", "output": "ok", "tool_call_id": "c1"}
    raw = [
        {"message_type": "text", "content": "hello", "sender_name": "Alice", "sender_type": "User"},
        {"message_type": "tool_call", "content": json.dumps(call)},
        {"message_type": "tool_result", "content": json.dumps(result)},
    ]
    human, ai, tool = converter.convert(raw)
    assert human.content == "[Alice]: hello"
    assert ai.tool_calls[0]["id"] == tool.tool_call_id == "c1"


async def test_a_graph_factory_gets_the_room_tools_and_keeps_its_thread(
    base_url: str, fake: FakeModel, live_server: Any, seeded: Any, alice: Person
) -> None:
    from langgraph.checkpoint.memory import InMemorySaver

    from band.adapters.langgraph import build_react_graph

    llm = ChatOpenAI(model="fake-model", api_key="fake", base_url=base_url, max_retries=0)
    saver = InMemorySaver()
    seen: list[list[str]] = []

    def factory(tools: list[Any]) -> Any:
        seen.append([t.name for t in tools])
        return build_react_graph(llm, tools, saver)

    room = await alice.create_room("Factory", seeded.agent_id)
    async with running(live_server, seeded, LangGraphAdapter(graph_factory=factory)):
        await ask(alice, room, "first", seeded.agent_id)
        await ask(alice, room, "second", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
    assert len(replies) == 2 and "You said: second" in replies[1]
    assert len(seen) == 2 and "band_send_message" in seen[0]
    assert "first" in " ".join(fake.requests[-1].texts("user"))
