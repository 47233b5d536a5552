"""History converters for the tool-loop adapters: tool events rebuilt and paired by id."""

from __future__ import annotations

import json
from typing import Any

from band.converters import (
    INTERRUPTED_TOOL_TEXT,
    AnthropicHistoryConverter,
    OpenAIChatHistoryConverter,
)
from band.converters.google_adk import GoogleADKHistoryConverter


def _text(name: str, content: str, sender_type: str = "User") -> dict[str, Any]:
    return {
        "message_type": "text",
        "content": content,
        "sender_name": name,
        "sender_type": sender_type,
    }


def _call(call_id: str, content: str = "hi") -> dict[str, Any]:
    payload = {"name": "band_send_message", "args": {"content": content}, "tool_call_id": call_id}
    return {"message_type": "tool_call", "content": json.dumps(payload), "sender_name": "Bot"}


def _result(call_id: str) -> dict[str, Any]:
    payload = {"name": "band_send_message", "output": "ok", "tool_call_id": call_id}
    return {"message_type": "tool_result", "content": json.dumps(payload), "sender_name": "Bot"}


def test_openai_pairs_calls_and_holds_text_that_arrived_mid_call() -> None:
    converter = OpenAIChatHistoryConverter()
    converter.set_agent_name("Bot")
    raw = [
        _text("Alice", "hello"),
        _call("c1"),
        _text("Bot", "hi", "Agent"),  # the send itself: already in the call's args
        _text("Carol", "me too"),  # arrived while the call was open
        _result("c1"),
        {"message_type": "thought", "content": "ignored", "sender_name": "Bot"},
    ]
    messages = converter.convert(raw)
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert messages[0]["content"] == "[Alice]: hello"
    assert messages[1]["tool_calls"][0]["id"] == "c1"
    assert json.loads(messages[1]["tool_calls"][0]["function"]["arguments"]) == {"content": "hi"}
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    assert messages[3]["content"] == "[Carol]: me too"


def test_anthropic_answers_an_unanswered_call_with_the_interrupted_error() -> None:
    converter = AnthropicHistoryConverter("Bot")
    messages = converter.convert([_text("Bot", "earlier reply", "Agent"), _call("c9")])
    assert messages[0] == {"role": "assistant", "content": "earlier reply"}
    assert messages[1]["content"][0]["id"] == "c9"
    result = messages[2]["content"][0]
    assert result == {
        "type": "tool_result",
        "tool_use_id": "c9",
        "content": INTERRUPTED_TOOL_TEXT,
        "is_error": True,
    }


def test_google_adk_marks_only_the_failed_result_as_an_error() -> None:
    converter = GoogleADKHistoryConverter("Bot")
    messages = converter.convert([_call("c1"), _result("c1"), _call("c2")])
    assert messages[0] == {
        "role": "model",
        "content": [
            {
                "type": "function_call",
                "id": "c1",
                "name": "band_send_message",
                "args": {"content": "hi"},
            }
        ],
    }
    answered, interrupted = messages[1]["content"][0], messages[3]["content"][0]
    assert answered == {
        "type": "function_response",
        "tool_call_id": "c1",
        "name": "band_send_message",
        "output": "ok",
    }
    assert interrupted["output"] == INTERRUPTED_TOOL_TEXT
    assert interrupted["is_error"] is True


def test_results_without_a_matching_call_are_dropped() -> None:
    assert OpenAIChatHistoryConverter("Bot").convert([_result("nope")]) == []
