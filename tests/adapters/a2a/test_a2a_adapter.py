"""``A2AAdapter``: a Band room talks to a real a2a-sdk server agent through the real a2a client.

The remote (``remote_agent.py``) answers, asks back, fails or works until cancelled; the
agent runs on the live platform and Alice talks to it over REST.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from ..framework_support import Person, alice, ask, require, running

require("a2a", "BAND_REQUIRE_A2A")

from runtime_support import control, until, until_status  # noqa: E402

from band.integrations.a2a import A2AAdapter, A2AAdapterConfig, A2AAuth  # noqa: E402
from band.integrations.a2a.adapter import A2ATaskRun  # noqa: E402

from .remote_agent import RemoteServer  # noqa: E402

__all__ = ["alice"]
pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def remote() -> AsyncIterator[RemoteServer]:
    async with RemoteServer() as server:
        yield server


def adapter_for(remote: RemoteServer, **config: Any) -> A2AAdapter:
    return A2AAdapter(A2AAdapterConfig(remote_url=remote.url, **config))


async def task_states(alice: Person, room: str) -> list[dict[str, Any]]:
    return [t["metadata"] for t in await alice.events(room, "task") if t.get("metadata")]


async def test_a_mention_is_answered_by_the_remote_agent_in_one_conversation(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    room = await alice.create_room("A2A", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        await ask(alice, room, "hello there", seeded.agent_id)
        await ask(alice, room, "and again", seeded.agent_id)
        listing = await alice.listing(room)
        thoughts = await alice.events(room, "thought")
        states = await task_states(alice, room)

    replies = [
        m for m in listing if m["sender_id"] == seeded.agent_id and m["message_type"] == "text"
    ]
    assert [r["content"].split(": ", 1)[1] for r in replies] == [
        "hello there (turn 1 of this context)",
        "and again (turn 2 of this context)",
    ]
    assert all(seeded.user_id in json.dumps(r.get("metadata")) for r in replies)
    assert [t["content"] for t in thoughts] == ["thinking", "thinking"]
    contexts = {context for context, _ in remote.agent.seen}
    assert len(contexts) == 1
    assert [s["a2a_task_state"] for s in states] == ["TASK_STATE_COMPLETED"] * 2
    assert {s["a2a_context_id"] for s in states} == contexts


async def test_a_question_from_the_remote_is_answered_in_the_same_task(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    room = await alice.create_room("Question", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        await ask(alice, room, "a question for you", seeded.agent_id)
        asked = await alice.replies(room, seeded.agent_id)
        await ask(alice, room, "blue", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
        states = await task_states(alice, room)

    assert asked[-1].endswith("Which colour?")
    assert replies[-1].endswith("You chose: blue")
    assert [s["a2a_task_state"] for s in states] == [
        "TASK_STATE_INPUT_REQUIRED",
        "TASK_STATE_COMPLETED",
    ]
    assert states[0]["a2a_task_id"] == states[1]["a2a_task_id"]


async def test_a_failed_remote_task_is_reported_once_and_the_message_fails(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    room = await alice.create_room("Fail", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        message_id = await alice.say(room, "please fail", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "failed")
        errors = await until(lambda: alice.events(room, "error"))
        await asyncio.sleep(0.5)
        assert len(await alice.events(room, "error")) == 1
    assert errors[0]["content"] == "I cannot do that"
    failure = errors[0]["metadata"]["failure"]
    assert failure["provider"] == "a2a" and failure["code"] == "TASK_STATE_FAILED"
    assert await alice.replies(room, seeded.agent_id) == []


async def test_stop_cancels_the_remote_task_and_leaves_the_message_open(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    room = await alice.create_room("Stop", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        message_id = await alice.say(room, "wait for me", seeded.agent_id)
        await asyncio.wait_for(remote.agent.working.wait(), 30)
        await control(live_server, seeded.agent_id, room, "stop")
        await until(lambda: remote.agent.cancelled)
        await until_status(alice, room, message_id, seeded.agent_id, "processing")
    assert len(remote.agent.cancelled) == 1
    assert await alice.replies(room, seeded.agent_id) == []


async def test_a_restarted_agent_continues_the_rooms_conversation(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    room = await alice.create_room("Restart", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        await ask(alice, room, "remember me", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        await ask(alice, room, "still there?", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
    assert replies[-1].endswith("still there? (turn 2 of this context)")
    assert len({context for context, _ in remote.agent.seen}) == 1


async def test_a_restarted_agent_answers_a_pending_question_in_the_same_task(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    room = await alice.create_room("Pending", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        await ask(alice, room, "one question", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote)):
        await ask(alice, room, "green", seeded.agent_id)
        replies = await alice.replies(room, seeded.agent_id)
    assert replies[-1].endswith("You chose: green")


async def test_rooms_are_separate_conversations_and_streaming_can_be_off(
    live_server: Any, seeded: Any, alice: Person, remote: RemoteServer
) -> None:
    red = await alice.create_room("Red", seeded.agent_id)
    blue = await alice.create_room("Blue", seeded.agent_id)
    async with running(live_server, seeded, adapter_for(remote, streaming=False)):
        await asyncio.gather(
            ask(alice, red, "crimson", seeded.agent_id), ask(alice, blue, "azure", seeded.agent_id)
        )
        await ask(alice, red, "red again", seeded.agent_id)
        red_replies = await alice.replies(red, seeded.agent_id)
        blue_replies = await alice.replies(blue, seeded.agent_id)
        thoughts = await alice.events(red, "thought")
    assert red_replies[-1].endswith("red again (turn 2 of this context)")
    assert blue_replies == [blue_replies[0]] and "azure (turn 1" in blue_replies[0]
    assert len({context for context, _ in remote.agent.seen}) == 2
    assert thoughts == []  # without streaming only the final task is seen


def test_credentials_become_headers_and_stay_out_of_repr() -> None:
    auth = A2AAuth(api_key="k-1", bearer_token="t-2", headers={"X-Team": "blue"})
    assert auth.to_headers() == {
        "X-Team": "blue",
        "X-API-Key": "k-1",
        "Authorization": "Bearer t-2",
    }
    assert "k-1" not in repr(auth) and "t-2" not in repr(auth)


def test_a_task_run_is_known_once_it_has_a_task_id() -> None:
    """band-sdk's ``A2ATaskRun`` record: (client, room_id, task_id, finished=False)."""
    client = object()
    waiting = A2ATaskRun(client, "room-1", None)
    assert not waiting.known.is_set() and not waiting.finished
    resumed = A2ATaskRun(client, "room-1", "task-7")
    assert resumed.known.is_set() and resumed.client is client and resumed.room_id == "room-1"
