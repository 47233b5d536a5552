"""The fake model endpoints answer the real OpenAI and Anthropic clients as the providers do."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from openai import AsyncOpenAI, OpenAI

from band.testing import (
    OFFLINE_MODEL_LABEL,
    FakeModel,
    Reply,
    ToolCall,
    fake_openai_server,
    openai_client,
)

SEND_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "band_send_message",
        "description": "Send a message to the room.",
        "parameters": {
            "type": "object",
            "properties": {
                "content": {"type": "string"},
                "mentions": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["content", "mentions"],
        },
    },
}
NO_REPLY_TOOL: Any = {
    "type": "function",
    "function": {
        "name": "band_no_reply",
        "description": "End the turn silently.",
        "parameters": {"type": "object", "properties": {"reason": {"type": "string"}}},
    },
}
SYSTEM = "You are Helper, a friendly agent."
ROSTER = (
    "[System]: ## Current Participants\n"
    "- @alice — Alice (User)\n"
    "- @alice/critic — Critic (Agent)\n"
    "IMPORTANT: use exact handles."
)


async def test_text_reply_reaches_the_real_openai_client() -> None:
    fake = FakeModel().reply("Hello there")
    async with openai_client(fake) as client:
        response = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "hi"}]
        )
    choice = response.choices[0]
    assert choice.message.content == "Hello there"
    assert choice.finish_reason == "stop"
    assert response.model == "gpt-test"
    assert response.usage is not None and response.usage.total_tokens > 0


async def test_requests_are_recorded_with_messages_tools_and_model() -> None:
    fake = FakeModel().reply("ok")
    async with openai_client(fake) as client:
        await client.chat.completions.create(
            model="gpt-test",
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi"}],
            tools=[SEND_TOOL],
        )
    request = fake.last_request
    assert request.api == "openai"
    assert request.model == "gpt-test"
    assert request.system == SYSTEM
    assert request.texts("user") == ["hi"]
    assert request.tool_names == ("band_send_message",)
    assert request.stream is False
    assert request.headers["authorization"] == "Bearer fake"


async def test_tool_call_without_streaming() -> None:
    fake = FakeModel().call_tool("band_send_message", {"content": "hi", "mentions": ["alice"]})
    async with openai_client(fake) as client:
        response = await client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "x"}],
            tools=[SEND_TOOL],
        )
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert len(calls) == 1
    call: Any = calls[0]
    assert call.function.name == "band_send_message"
    assert json.loads(call.function.arguments) == {"content": "hi", "mentions": ["alice"]}
    assert call.id.startswith("call_")


async def test_streamed_text_and_tool_call_argument_deltas() -> None:
    arguments = {"content": "a fairly long reply to split into pieces", "mentions": ["alice"]}
    fake = FakeModel().queue(
        Reply(
            text="Let me answer.",
            tool_calls=(ToolCall("band_send_message", arguments, id="call_x"),),
        )
    )
    async with openai_client(fake) as client:
        stream = await client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "x"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        text, args, names, ids, finish, usage, chunks = "", "", [], [], None, None, 0
        async for chunk in stream:
            chunks += 1
            usage = chunk.usage or usage
            for choice in chunk.choices:
                text += choice.delta.content or ""
                for delta in choice.delta.tool_calls or []:
                    if delta.id:
                        ids.append(delta.id)
                    if delta.function and delta.function.name:
                        names.append(delta.function.name)
                    if delta.function and delta.function.arguments:
                        args += delta.function.arguments
                finish = choice.finish_reason or finish
    assert text == "Let me answer."
    assert names == ["band_send_message"] and ids == ["call_x"]
    assert json.loads(args) == arguments
    assert finish == "tool_calls"
    assert usage is not None and usage.completion_tokens > 0
    assert chunks > 6  # the arguments really arrived in several deltas
    assert fake.last_request.stream is True


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
    ],
)
async def test_scripted_errors_raise_the_clients_typed_errors(
    status: int, error: type[openai.APIStatusError]
) -> None:
    fake = FakeModel().fail(status, "scripted trouble").reply("after the error")
    async with openai_client(fake) as client:
        with pytest.raises(error) as caught:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
        assert caught.value.status_code == status
        assert "scripted trouble" in str(caught.value)
        again = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
    assert again.choices[0].message.content == "after the error"
    assert len(fake.requests) == 2


async def test_strict_fake_refuses_unscripted_requests() -> None:
    fake = FakeModel(strict=True)
    async with openai_client(fake) as client:
        with pytest.raises(openai.InternalServerError, match="no scripted reply"):
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )


async def test_loopback_server_serves_async_and_sync_clients() -> None:
    fake = FakeModel().reply("one").reply("two")
    with fake_openai_server(fake) as base_url:
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        async with AsyncOpenAI(base_url=base_url, api_key="fake", max_retries=0) as client:
            first = await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
        with OpenAI(base_url=base_url, api_key="fake", max_retries=0) as sync_client:
            second = sync_client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
    assert first.choices[0].message.content == "one"
    assert second.choices[0].message.content == "two"


# -- the default policy ----------------------------------------------------------------------


async def _ask(fake: FakeModel, messages: Any, tools: list[Any]) -> Any:
    async with openai_client(fake) as client:
        kwargs: dict[str, Any] = {"tools": tools} if tools else {}
        response = await client.chat.completions.create(model="m", messages=messages, **kwargs)
    return response.choices[0].message


async def test_default_policy_answers_a_mention_through_band_send_message() -> None:
    message = await _ask(
        FakeModel(),
        [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "[Alice]: @helper hi"}],
        [SEND_TOOL, NO_REPLY_TOOL],
    )
    (call,) = message.tool_calls
    assert call.function.name == "band_send_message"
    args = json.loads(call.function.arguments)
    assert args["mentions"] == ["Alice"]
    assert "Helper here" in args["content"] and "You said: hi" in args["content"]
    assert OFFLINE_MODEL_LABEL in args["content"]


async def test_default_policy_mentions_the_handle_from_the_roster() -> None:
    message = await _ask(
        FakeModel(),
        [{"role": "user", "content": ROSTER}, {"role": "user", "content": "[Alice]: hello"}],
        [SEND_TOOL],
    )
    assert json.loads(message.tool_calls[0].function.arguments)["mentions"] == ["alice"]


async def test_default_policy_declines_when_another_agent_speaks() -> None:
    message = await _ask(
        FakeModel(),
        [{"role": "user", "content": ROSTER}, {"role": "user", "content": "[Critic]: thoughts?"}],
        [SEND_TOOL, NO_REPLY_TOOL],
    )
    assert message.tool_calls[0].function.name == "band_no_reply"


async def test_default_policy_ends_quietly_after_a_successful_tool_result() -> None:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "band_send_message", "arguments": "{}"},
    }
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "[Alice]: hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"id": "m1"}'},
    ]
    message = await _ask(FakeModel(), history, [SEND_TOOL])
    assert message.tool_calls is None
    assert message.content == ""
    history[-1]["content"] = '"Error: At least one mention is required"'
    retry = await _ask(FakeModel(), history, [SEND_TOOL])
    assert retry.content.startswith("Hi Alice!")


async def test_default_policy_answers_in_text_without_band_tools() -> None:
    message = await _ask(FakeModel(), [{"role": "user", "content": "[Bob]: ping"}], [])
    assert message.tool_calls is None
    assert message.content.startswith("Hi Bob!") and "ping" in message.content


async def test_custom_policy_sees_each_request() -> None:
    fake = FakeModel(policy=lambda request: Reply(text=f"{len(request.entries)} entries"))
    message = await _ask(fake, [{"role": "user", "content": "a"}], [])
    assert message.content == "1 entries"
