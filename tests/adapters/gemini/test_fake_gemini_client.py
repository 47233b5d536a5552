"""The fake Gemini API through the real google-genai client: in-process and over loopback,
sync and async, streamed and not, with function calls, usage and typed errors."""

from __future__ import annotations

import pytest

from adapters.framework_support import require

require("google.genai", "BAND_REQUIRE_GEMINI")

from google import genai  # noqa: E402
from google.genai import errors, types  # noqa: E402

from band.testing import FakeModel, Reply, ToolCall, gemini_client  # noqa: E402

pytestmark = pytest.mark.timeout(60)

SEND = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="band_send_message",
            description="Send a message to the room.",
            parameters_json_schema={
                "type": "object",
                "properties": {"content": {"type": "string"}},
            },
        )
    ]
)


async def test_function_call_text_thoughts_and_usage_reach_the_async_client() -> None:
    call = ToolCall("band_send_message", {"content": "hi"}, id="c1")
    fake = FakeModel().queue(Reply(text="Sending.", reasoning="Alice wants hi", tool_calls=(call,)))
    client = gemini_client(fake)
    response = await client.aio.models.generate_content(
        model="gemini-test",
        contents="[Alice]: hi",
        config=types.GenerateContentConfig(system_instruction="You are Helper.", tools=[SEND]),
    )
    assert response.text == "Sending."
    [function_call] = response.function_calls or []
    assert (function_call.id, function_call.name, function_call.args) == (
        "c1",
        "band_send_message",
        {"content": "hi"},
    )
    thoughts = [p.text for p in response.candidates[0].content.parts if p.thought]
    assert thoughts == ["Alice wants hi"]
    usage = response.usage_metadata
    assert usage.prompt_token_count > 0 and usage.thoughts_token_count > 0
    request = fake.last_request
    assert request.model == "gemini-test" and request.system == "You are Helper."
    assert request.tool_names == ("band_send_message",)
    assert request.headers["x-goog-api-key"] == "fake"


async def test_function_responses_come_back_as_tool_entries() -> None:
    fake = FakeModel().reply("ok")
    contents = [
        types.Content(role="user", parts=[types.Part.from_text(text="[Alice]: hi")]),
        types.Content(
            role="model",
            parts=[types.Part(function_call=types.FunctionCall(id="c1", name="t", args={}))],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id="c1", name="t", response={"output": "it worked"}
                    )
                )
            ],
        ),
    ]
    await gemini_client(fake).aio.models.generate_content(model="m", contents=contents)
    assert fake.last_request.texts("tool") == ["it worked"]
    # A model turn of function calls only is an empty assistant entry.
    assert [e.role for e in fake.last_request.entries] == ["user", "assistant", "tool"]


async def test_streamed_chunks_rebuild_the_answer() -> None:
    call = ToolCall("band_send_message", {"content": "done"})
    fake = FakeModel().queue(Reply(text="a streamed answer", tool_calls=(call,)))
    stream = await gemini_client(fake).aio.models.generate_content_stream(model="m", contents="hi")
    chunks = [chunk async for chunk in stream]
    assert len(chunks) > 2
    assert "".join(c.text or "" for c in chunks if not c.function_calls) == "a streamed answer"
    assert chunks[-1].function_calls[0].args == {"content": "done"}
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP
    assert chunks[-1].usage_metadata.total_token_count > 0
    assert fake.last_request.stream is True


@pytest.mark.parametrize(
    ("status", "error_type", "name"),
    [
        (400, errors.ClientError, "INVALID_ARGUMENT"),
        (429, errors.ClientError, "RESOURCE_EXHAUSTED"),
        (500, errors.ServerError, "INTERNAL"),
        (503, errors.ServerError, "UNAVAILABLE"),
    ],
)
async def test_scripted_errors_raise_the_clients_typed_errors(
    status: int, error_type: type[errors.APIError], name: str
) -> None:
    fake = FakeModel().fail(status, "scripted failure")
    with pytest.raises(error_type) as info:
        await gemini_client(fake).aio.models.generate_content(model="m", contents="hi")
    assert (info.value.code, info.value.status, info.value.message) == (
        status,
        name,
        "scripted failure",
    )


def test_the_sync_client_follows_google_gemini_base_url(gemini_api: FakeModel) -> None:
    gemini_api.reply("from the environment")
    client = genai.Client()  # kept: a Client closes its transport when collected
    response = client.models.generate_content(model="m", contents="[Alice]: hi")
    assert response.text == "from the environment"
    assert gemini_api.last_request.headers["x-goog-api-key"] == "fake-key"


async def test_the_async_client_streams_over_loopback(gemini_api: FakeModel) -> None:
    gemini_api.reply("over the loopback socket")
    client = genai.Client()
    stream = await client.aio.models.generate_content_stream(model="m", contents="hi")
    text = "".join([chunk.text or "" async for chunk in stream])
    assert text == "over the loopback socket"
