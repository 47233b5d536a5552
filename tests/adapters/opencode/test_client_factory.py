"""``OpencodeAdapter(client_factory=...)``: the adapter on any ``OpencodeClientProtocol``; here
a scripted one answering each prompt with events (no OpenCode server), through ``band serve``:
the session is made and recorded, Band's tools registered, the streamed text (a part and its
deltas) relayed as the reply, the question tool's question posted and answered from the room."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from band.adapters.opencode import OpencodeAdapter, OpencodeAdapterConfig

from ..band_serve import Room
from ..coding_e2e import AgentStarter, agent_starter

pytestmark = pytest.mark.timeout(120)


class ScriptedOpencode:
    """Answers a prompt with an assistant message; one asking for a colour with a question
    first, whose answer becomes the message. Each room gets a session of its own (the agent is
    shared with earlier tests, whose leftover messages it may be served first)."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.calls: list[tuple[str, Any]] = []
        self.session = ""
        self.asked_in = ""

    async def health(self) -> None:
        self.calls.append(("health", None))

    async def create_session(self, *, title: str | None = None) -> dict[str, Any]:
        self.session = f"ses_scripted_{sum(kind == 'create_session' for kind, _ in self.calls)}"
        self.calls.append(("create_session", title))
        return {"id": self.session}

    async def get_session(self, session_id: str) -> dict[str, Any]:
        return {"id": session_id}

    async def register_mcp_server(self, *, name: str, url: str) -> dict[str, Any]:
        self.calls.append(("register", name))
        return {name: {"status": "connected"}}

    async def disconnect_mcp_server(self, name: str) -> None: ...

    async def prompt_async(
        self, session_id: str, *, parts: list[dict[str, Any]], **kw: Any
    ) -> None:
        text = parts[0]["text"]
        self.calls.append(("prompt", kw.get("tools")))
        if "colour" in text:
            self.asked_in = session_id
            self.say(
                {
                    "type": "question.asked",
                    "properties": {
                        "id": "que_1",
                        "sessionID": session_id,
                        "questions": [{"question": "Which colour?"}],
                    },
                }
            )
        else:
            self.answer(f"Scripted: {text.splitlines()[-1]}", session_id)

    def answer(self, text: str, session_id: str) -> None:
        s = session_id
        self.say(
            {
                "type": "message.updated",
                "properties": {
                    "info": {
                        "id": "msg_1",
                        "sessionID": s,
                        "role": "assistant",
                        "tokens": {"input": 3, "output": 2},
                    }
                },
            }
        )
        self.say(
            {
                "type": "message.part.updated",
                "properties": {
                    "part": {
                        "id": "prt_1",
                        "sessionID": s,
                        "messageID": "msg_1",
                        "type": "text",
                        "text": text[:5],
                    }
                },
            }
        )
        # The rest streams as deltas of that part (and a delta of another field is not text).
        delta = {"sessionID": s, "messageID": "msg_1", "partID": "prt_1", "field": "text"}
        self.say({"type": "message.part.delta", "properties": {**delta, "delta": text[5:]}})
        other = {**delta, "field": "metadata", "delta": "NOT TEXT"}
        self.say({"type": "message.part.delta", "properties": other})
        self.say({"type": "session.idle", "properties": {"sessionID": s}})

    def say(self, event: dict[str, Any]) -> None:
        self.events.put_nowait(event)

    async def reply_question(self, request_id: str, *, answers: list[list[str]]) -> None:
        self.calls.append(("question", answers))
        self.answer(f"You picked {answers[0][0]}", self.asked_in)

    async def reply_permission(self, permission_id: str, **kw: Any) -> None: ...

    async def abort_session(self, session_id: str) -> None: ...

    async def iter_events(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            yield await self.events.get()

    async def close(self) -> None: ...


@pytest.fixture
def scripted() -> ScriptedOpencode:
    return ScriptedOpencode()


@pytest.fixture
def start(band_serve: Any, scripted: ScriptedOpencode) -> AgentStarter:
    def build(**fields: Any) -> OpencodeAdapter:
        config = OpencodeAdapterConfig(fallback_send_agent_text=True, **fields)
        return OpencodeAdapter(config, client_factory=lambda _config: scripted)  # type: ignore[arg-type,return-value]

    return agent_starter(band_serve, build)


async def test_a_scripted_client_serves_the_room(
    start: AgentStarter, room: Room, scripted: ScriptedOpencode
) -> None:
    async with start():
        await room.say("hello there")
        reply = await room.wait_text(lambda t: "Scripted:" in t)
        await room.say("which colour do you like?")
        question = await room.wait_text(lambda t: "Which colour?" in t)
        await room.say("green")
        picked = await room.wait_text(lambda t: "You picked green" in t)
        tasks = await room.events("task")
    assert "hello there" in reply and "NOT TEXT" not in reply
    assert "`que_1`" in question and picked
    kinds = [kind for kind, _ in scripted.calls]
    # Health first; a room's session is made before Band's tools are registered on it (an
    # earlier test's leftover message may make a session of its own first).
    assert kinds[0] == "health"
    assert kinds.index("create_session") < kinds.index("register")
    assert ("question", [["green"]]) in scripted.calls
    assert sum(t["content"] == "OpenCode session" for t in tasks) == 1
