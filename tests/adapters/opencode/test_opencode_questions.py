"""OpenCode's question tool relayed to the room (``question_mode``), on the real
``opencode serve`` and a scripted model: the question appears in the room, the person's next
message is its answer, and the model replies with it; ``auto_reject`` declines it unasked."""

from __future__ import annotations

from typing import Any

import pytest

from band.adapters.opencode import OpencodeAdapter, OpencodeAdapterConfig
from band.testing import FakeModel, ModelRequest, Reply, ToolCall, default_policy

from ..band_serve import Room
from ..coding_e2e import AgentStarter, agent_starter
from .opencode_support import OpencodeServe

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

QUESTION = ToolCall(
    "question",
    {
        "questions": [
            {
                "question": "Which colour should the button be?",
                "header": "Colour",
                "options": [{"label": "blue", "description": "calm"}],
            }
        ]
    },
)


def asks_a_question(request: ModelRequest) -> Any:
    """Calls the question tool when asked to, then tells the room what came back."""
    last = request.answering_tool()
    send = request.offered("band_send_message") or "band_send_message"
    if last is not None and "colour" in last.text.lower():
        content = f"The answer came back: {last.text.strip()[:300]}"
        return Reply(tool_calls=(ToolCall(send, {"content": content, "mentions": ["alice"]}),))
    if last is None and any("ask me about the colour" in t for t in request.texts("user")[-1:]):
        return Reply(tool_calls=(QUESTION,))
    return default_policy(request)


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(asks_a_question)


@pytest.fixture
def start_opencode(band_serve: Any, opencode: OpencodeServe) -> AgentStarter:
    def build(**fields: Any) -> OpencodeAdapter:
        return OpencodeAdapter(OpencodeAdapterConfig(base_url=opencode.url, **fields))

    return agent_starter(band_serve, build)


async def test_the_room_answers_opencodes_question(
    start_opencode: AgentStarter, room: Room
) -> None:
    async with start_opencode():
        await room.say("please ask me about the colour")
        asked = await room.wait_text(lambda t: "OpenCode has a question" in t)
        await room.say("teal, please")
        answered = await room.wait_text(lambda t: "answered." in t)
        reply = await room.wait_text(lambda t: "The answer came back" in t)
    assert "Which colour should the button be?" in asked
    assert "answered" in answered
    assert "teal, please" in reply


async def test_auto_reject_declines_without_asking_the_room(
    start_opencode: AgentStarter, room: Room
) -> None:
    async with start_opencode(question_mode="auto_reject"):
        await room.say("please ask me about the colour")
        reply = await room.wait_text(lambda t: "The answer came back" in t)
        texts = await room.texts()
    assert "declined" in reply
    assert not any("OpenCode has a question" in t for t in texts)
