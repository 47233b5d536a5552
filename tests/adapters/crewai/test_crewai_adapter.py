"""CrewAIAdapter beyond the conformance suite: its converter, lenient mentions, config."""

from __future__ import annotations

import json

import pytest

from adapters.framework_support import require

require("crewai", "BAND_REQUIRE_CREWAI")

from crewai import LLM  # noqa: E402
from pydantic import ValidationError  # noqa: E402

from adapters.turn_support import example_answers, room_tools, turn  # noqa: E402
from band.adapters import CrewAIAdapter, CrewAIAdapterConfig  # noqa: E402
from band.converters import CrewAIHistoryConverter  # noqa: E402
from band.integrations.crewai.catalog import normalize_mentions_lenient  # noqa: E402
from band.testing import FakeModel  # noqa: E402
from band.testing.fake_tools import tool_event_payloads  # noqa: E402

# A name CrewAI knows, so its own OpenAI client (and OPENAI_BASE_URL) is used, as a user's.
CREWAI_MODEL = "openai/gpt-5.4-mini"
pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.filterwarnings("ignore::ImportWarning"),
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
]


def adapter(base_url: str) -> CrewAIAdapter:
    return CrewAIAdapter(
        llm=LLM(model="openai/fake-model", base_url=base_url, api_key="fake", max_retries=0)
    )


def test_history_keeps_text_and_the_agents_own_replies() -> None:
    raw = [
        {"message_type": "text", "content": "hi", "sender_name": "Alice", "sender_type": "User"},
        {"message_type": "tool_call", "content": "{}", "sender_name": "Bot"},
        {"message_type": "text", "content": "Hello!", "sender_name": "Bot", "sender_type": "Agent"},
        {"message_type": "text", "content": "  ", "sender_name": "Alice", "sender_type": "User"},
    ]
    assert CrewAIHistoryConverter("Bot").convert(raw) == [
        {"role": "user", "content": "[Alice]: hi", "sender": "Alice", "sender_type": "User"},
        {"role": "assistant", "content": "Hello!", "sender": "Bot", "sender_type": "Agent"},
    ]


@pytest.mark.parametrize(
    ("given", "wanted"),
    [
        ('["alice", "bob"]', ["alice", "bob"]),
        ("[@alice, 'bob']", ["@alice", "bob"]),
        ("alice", ["alice"]),
        (None, []),
        (["alice"], ["alice"]),
    ],
)
def test_mentions_are_read_leniently(given: object, wanted: list[str]) -> None:
    assert normalize_mentions_lenient(given) == wanted


async def test_mentions_sent_as_a_json_string_still_reach_the_room(
    base_url: str, fake: FakeModel
) -> None:
    args = {"content": "Hi Alice", "mentions": '["alice"]'}
    fake.call_tool("band_send_message", args).reply("")
    tools = room_tools()
    await turn(adapter(base_url), tools, "hello")
    assert tools.chat == ["Hi Alice"]
    calls = tool_event_payloads(tools, "tool_call")
    results = tool_event_payloads(tools, "tool_result")
    assert calls[0]["tool_call_id"] == results[0]["tool_call_id"]
    assert "is_error" not in results[0]


async def test_the_room_conversation_is_sent_as_messages_with_its_roles(
    base_url: str, fake: FakeModel
) -> None:
    history = [
        {
            "role": "user",
            "content": "[Alice]: remember 7",
            "sender": "Alice",
            "sender_type": "User",
        },
        {"role": "assistant", "content": "Noted.", "sender": "Bot", "sender_type": "Agent"},
    ]
    await turn(adapter(base_url), room_tools(), "what was it?", history=history)
    sent = fake.requests[0].body["messages"]
    assert {"role": "assistant", "content": "Noted."} in sent
    assert json.dumps(sent).count("what was it?") == 1


def test_config_defaults_and_unknown_fields() -> None:
    config = CrewAIAdapterConfig()
    assert (config.model, config.max_iter, config.allow_delegation) == ("gpt-6-luna", 20, False)
    with pytest.raises(ValidationError):
        CrewAIAdapterConfig(temperature=0.1)  # type: ignore[call-arg]


async def test_the_example_answers_a_mention(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await example_answers("crewai_agent", base_url, CREWAI_MODEL, monkeypatch)


async def test_the_flow_example_answers_a_mention_without_peers(
    base_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await example_answers("crewai_flow_agent", base_url, CREWAI_MODEL, monkeypatch)
