"""PydanticAIAdapter against the live platform, with an OpenAI Chat model on the fake endpoint."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest

from adapters.framework_support import Person, ask, require, running

require("pydantic_ai", "BAND_REQUIRE_PYDANTIC_AI")

from pydantic_ai.messages import ModelResponse, ToolCallPart, ToolReturnPart  # noqa: E402
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402

from band.adapters import PydanticAIAdapter  # noqa: E402
from band.converters import PydanticAIHistoryConverter  # noqa: E402
from band.core.exceptions import BandConfigError  # noqa: E402
from band.testing import FakeModel, fake_openai_server  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def base_url(fake: FakeModel) -> Iterator[str]:
    with fake_openai_server(fake) as url:
        yield url


def adapter(base_url: str, **features: Any) -> PydanticAIAdapter:
    provider = OpenAIProvider(base_url=base_url, api_key="fake")
    return PydanticAIAdapter(llm=OpenAIChatModel("fake-model", provider=provider), **features)


async def test_a_mention_is_answered_with_a_reply_that_mentions_the_sender(
    base_url: str, live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Reply", seeded.agent_id)
    async with running(live_server, seeded, adapter(base_url)):
        await ask(alice, room, "hello pydantic", seeded.agent_id)
        listing = await alice.listing(room)
    replies = [
        m for m in listing if m["sender_id"] == seeded.agent_id and m["message_type"] == "text"
    ]
    assert len(replies) == 1
    assert "You said: hello pydantic" in replies[0]["content"]
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
        usage = [
            t["metadata"]["band_usage"]
            for t in await alice.events(room, "task")
            if "band_usage" in (t["metadata"] or {})
        ]
    assert [c["name"] for c in calls] == [r["name"] for r in results] == ["band_send_message"]
    assert calls[0]["tool_call_id"] and calls[0]["tool_call_id"] == results[0]["tool_call_id"]
    assert calls[0]["tool_call_id"] in json.dumps(fake.requests[-1].body["messages"])
    assert len(usage) == 1 and usage[0]["input_tokens"] > 0


async def test_two_rooms_keep_separate_histories(
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
        "PydanticAIAdapter does not support emit kind(s): thoughts; supported: tool_calls, usage"
    )


def test_history_converter_pairs_calls_with_results() -> None:
    converter = PydanticAIHistoryConverter("Echo")
    call = {"name": "band_send_message", "args": {"content": "Hi"}, "tool_call_id": "c1"}
    result = {"name": "band_send_message", "output": "ok", "tool_call_id": "c1"}
    raw = [
        {"message_type": "tool_call", "content": json.dumps(call)},
        {"message_type": "tool_result", "content": json.dumps(result)},
        {"message_type": "text", "content": "Hi", "sender_name": "Echo", "sender_type": "Agent"},
    ]
    response, request, own = converter.convert(raw)
    assert isinstance(response.parts[0], ToolCallPart)
    assert isinstance(request.parts[0], ToolReturnPart)
    assert response.parts[0].tool_call_id == request.parts[0].tool_call_id == "c1"
    assert isinstance(own, ModelResponse)
