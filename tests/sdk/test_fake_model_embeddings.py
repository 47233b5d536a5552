"""The fake OpenAI endpoint's embeddings, and tool calls that carry the room's ``chat_id``."""

from __future__ import annotations

import math
from typing import Any

from band.testing import FakeModel, openai_client


async def test_embeddings_are_deterministic_unit_vectors_close_for_shared_words() -> None:
    client = openai_client(FakeModel())
    first = await client.embeddings.create(model="m", input=["band rooms", "band rooms", "tea"])
    floats = await client.embeddings.create(
        model="m", input="band rooms", dimensions=8, encoding_format="float"
    )
    a, b, c = (d.embedding for d in first.data)
    assert len(a) == 1536 and a == b
    assert math.isclose(sum(x * x for x in a), 1.0, rel_tol=1e-5)
    assert sum(x * y for x, y in zip(a, c, strict=True)) < 0.5
    assert len(floats.data[0].embedding) == 8


async def test_a_send_tool_requiring_chat_id_gets_the_id_the_conversation_names() -> None:
    fake = FakeModel()
    tool: dict[str, Any] = {
        "type": "function",
        "function": {
            "name": "band_send_message",
            "parameters": {
                "type": "object",
                "properties": {"content": {}, "mentions": {}, "chat_id": {}},
                "required": ["content", "mentions", "chat_id"],
            },
        },
    }
    messages: list[Any] = [
        {"role": "system", "content": "Your chat room: chat_id room-1234abcd."},
        {"role": "user", "content": "[Alice]: hello"},
    ]
    answer = await openai_client(fake).chat.completions.create(
        model="fake-model", messages=messages, tools=[tool]
    )
    call = answer.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert '"chat_id": "room-1234abcd"' in call.function.arguments  # type: ignore[union-attr]
