"""The fake Messages endpoint answers the real Anthropic client, streamed and not."""

from __future__ import annotations

from typing import Any

import pytest

from band.testing import FakeModel, Reply, ToolCall, anthropic_client, fake_anthropic_server

anthropic = pytest.importorskip("anthropic")

SEND_TOOL: Any = {
    "name": "band_send_message",
    "description": "Send a message to the room.",
    "input_schema": {
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "mentions": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["content", "mentions"],
    },
}


async def test_text_and_tool_use_blocks_without_streaming() -> None:
    fake = FakeModel().queue(
        Reply(text="Sending.", tool_calls=(ToolCall("band_send_message", {"content": "hi"}),))
    )
    async with anthropic_client(fake) as client:
        message = await client.messages.create(
            model="claude-test",
            max_tokens=100,
            system="You are Helper, an agent.",
            messages=[{"role": "user", "content": "hi"}],
            tools=[SEND_TOOL],
        )
    assert message.stop_reason == "tool_use"
    text, tool = message.content
    assert text.type == "text" and text.text == "Sending."
    assert tool.type == "tool_use" and tool.name == "band_send_message"
    assert tool.input == {"content": "hi"}
    assert message.usage.output_tokens > 0
    request = fake.last_request
    assert request.api == "anthropic"
    assert request.system == "You are Helper, an agent."
    assert request.tool_names == ("band_send_message",)
    assert "anthropic-version" in request.headers
    auth = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    assert auth.endswith("fake")


async def test_streamed_events_rebuild_the_final_message() -> None:
    arguments = {"content": "a long enough reply to need several json deltas", "mentions": ["a"]}
    fake = FakeModel().queue(
        Reply(text="Here you go.", tool_calls=(ToolCall("band_send_message", arguments),))
    )
    async with anthropic_client(fake) as client:
        kinds: list[str] = []
        async with client.messages.stream(
            model="claude-test", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
        ) as stream:
            async for event in stream:
                kinds.append(event.type)
            final = await stream.get_final_message()
    assert kinds[0] == "message_start" and "message_stop" in kinds
    assert kinds.count("input_json") > 1  # the helper's event for each input_json_delta
    assert final.stop_reason == "tool_use"
    assert final.content[0].type == "text" and final.content[0].text == "Here you go."
    tool = final.content[1]
    assert tool.type == "tool_use" and tool.input == arguments
    assert fake.last_request.stream is True


async def test_raw_stream_events_are_the_documented_sequence() -> None:
    fake = FakeModel().reply("two words")
    async with anthropic_client(fake) as client:
        stream = await client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}], stream=True
        )
        kinds = [event.type async for event in stream]
    assert kinds == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


@pytest.mark.parametrize(
    ("status", "error_name"),
    [(400, "BadRequestError"), (429, "RateLimitError"), (529, "OverloadedError")],
)
async def test_scripted_errors_raise_the_clients_typed_errors(status: int, error_name: str) -> None:
    fake = FakeModel().fail(status, "scripted trouble")
    error = getattr(anthropic, error_name, anthropic.APIStatusError)
    async with anthropic_client(fake) as client:
        with pytest.raises(error) as caught:
            await client.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
            )
    assert caught.value.status_code == status
    assert "scripted trouble" in str(caught.value)


async def test_default_policy_replies_then_ends_after_the_tool_result() -> None:
    fake = FakeModel()
    messages: Any = [{"role": "user", "content": "[Alice]: @helper hi"}]
    async with anthropic_client(fake) as client:
        first = await client.messages.create(
            model="m", max_tokens=100, messages=messages, tools=[SEND_TOOL]
        )
        (tool,) = first.content
        assert tool.type == "tool_use" and tool.name == "band_send_message"
        assert tool.input["mentions"] == ["Alice"]
        messages += [
            {"role": "assistant", "content": [tool.model_dump()]},
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool.id, "content": "ok"}],
            },
        ]
        second = await client.messages.create(
            model="m", max_tokens=100, messages=messages, tools=[SEND_TOOL]
        )
    assert second.stop_reason == "end_turn"
    assert second.content == []


def test_loopback_server_serves_the_sync_client() -> None:
    fake = FakeModel().reply("hello")
    with fake_anthropic_server(fake) as base_url:
        client = anthropic.Anthropic(base_url=base_url, api_key="fake", max_retries=0)
        with client:
            message = client.messages.create(
                model="m", max_tokens=10, messages=[{"role": "user", "content": "x"}]
            )
    assert message.content[0].text == "hello"
