"""The unmodified official client (`band-sdk==6.0.1` from PyPI) runs agents against our server.

Each test seeds a fresh data folder, starts our server as a process, runs one or two agents
written on the official `SimpleAdapter` (tests/compat/agents/) in the isolated compat venv,
drives them as a person through the human REST API and checks what the room shows.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from .compat_harness import World, delivery_of, wait_for

pytestmark = [pytest.mark.compat, pytest.mark.timeout(240)]

GENERIC_FAILURE = "Internal error while processing message; see agent logs."
FAILURE_TEXT = "compat boom: the adapter raised on purpose"


async def post_mention(world: World, room_id: str, text: str) -> dict[str, Any]:
    """Alice posts `@<agent> text` mentioning the agent; returns the stored message."""
    r = await world.human.post_message(room_id, f"@{world.agent.handle} {text}", [world.agent.id])
    assert r.status_code in (200, 201), f"POST messages: {r.status_code} {r.text}"
    data: dict[str, Any] = r.json()["data"]
    assert data.get("id"), f"no message id in {r.text}"
    return data


async def wait_reply(world: World, room_id: str, after: dict[str, Any]) -> list[dict[str, Any]]:
    """The room's messages from `after` on, once an agent text reply follows it."""

    async def probe() -> list[dict[str, Any]] | None:
        msgs = await world.human.messages(room_id)
        ids = [m["id"] for m in msgs]
        assert after["id"] in ids, f"posted message {after['id']} missing from the listing"
        tail = msgs[ids.index(after["id"]) :]
        replies = [
            m
            for m in tail[1:]
            if m.get("message_type") == "text" and m.get("sender_id") == world.agent.id
        ]
        return tail if replies else None

    return await wait_for(
        probe,
        within=30,
        what=f"the agent's reply after {after['id']}",
        diagnostics=world.diagnostics,
    )


async def wait_processed(world: World, room_id: str, message_id: str) -> dict[str, Any]:
    """The agent's delivery of `message_id` ends `processed`; returns its delivery_status."""

    async def probe() -> dict[str, Any] | None:
        msgs = await world.human.messages(room_id)
        mine = next((m for m in msgs if m["id"] == message_id), None)
        assert mine is not None, f"message {message_id} missing from the listing"
        status = delivery_of(mine, world.agent.id)
        assert status is not None, f"no metadata.delivery_status for the agent: {mine}"
        return status if status.get("status") == "processed" else None

    status = await wait_for(
        probe,
        within=20,
        what=f"delivery of {message_id} to end processed",
        diagnostics=world.diagnostics,
    )
    r = await world.agent_api.next_message(room_id)
    assert r.status_code == 204, f"/next after processing: {r.status_code} {r.text}"
    return status


# --------------------------------------------------------------------------- scenario 1


async def test_mention_is_answered_with_tool_events(world: World) -> None:
    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)

    posted = await post_mention(world, world.room, "hello")
    turn = await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])
    assert turn["room_id"] == world.room
    assert turn["sender_id"] == world.person.id
    assert turn["sender_type"] == "User"
    assert "hello" in turn["content"]
    assert turn["bootstrap"] is True
    await agent.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])

    tail = await wait_reply(world, world.room, posted)
    kinds = [(m["message_type"], m["sender_id"]) for m in tail]
    assert kinds == [
        ("text", world.person.id),
        ("tool_call", world.agent.id),
        ("tool_result", world.agent.id),
        ("text", world.agent.id),
    ], json.dumps(tail, indent=1)

    call = json.loads(tail[1]["content"])
    result = json.loads(tail[2]["content"])
    assert call["name"] == "echo" and call["args"] == {"text": turn["content"]}
    assert result["name"] == "echo" and result["output"].startswith("echoed ")
    assert call["tool_call_id"] == result["tool_call_id"]

    reply = tail[3]
    assert "echo:" in reply["content"]
    assert reply["sender_type"] == "Agent"
    mentions = (reply.get("metadata") or {}).get("mentions") or []
    assert world.person.id in [m.get("id") for m in mentions], reply

    status = await wait_processed(world, world.room, posted["id"])
    assert status.get("current_attempt") == 1, status
    assert [a.get("status") for a in status.get("attempts") or []] == ["success"], status
    assert len(agent.turns_for(posted["id"])) == 1
    world.assert_wire_clean()


# --------------------------------------------------------------------------- scenario 2


async def test_message_posted_while_offline_is_processed_once(world: World) -> None:
    posted = await post_mention(world, world.room, "are you there?")
    # Before any agent connects the delivery waits on /next.
    r = await world.agent_api.next_message(world.room)
    assert r.status_code == 200, f"/next before connect: {r.status_code} {r.text}"
    assert r.json()["data"]["id"] == posted["id"]

    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)
    await agent.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])
    await wait_reply(world, world.room, posted)
    await wait_processed(world, world.room, posted["id"])

    # Give any duplicate (a push plus /next, or a repeated /next) time to show up.
    await asyncio.sleep(4)
    assert len(agent.turns_for(posted["id"])) == 1, agent.diagnostics()
    msgs = await world.human.messages(world.room)
    replies = [m for m in msgs if m["sender_id"] == world.agent.id and m["message_type"] == "text"]
    assert len(replies) == 1, json.dumps(msgs, indent=1)


# --------------------------------------------------------------------------- scenario 3


async def test_room_added_while_connected_is_served(world: World) -> None:
    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)

    r = await world.human.add_participant(world.side_room, world.agent.id)
    assert r.status_code in (200, 201), f"POST participants: {r.status_code} {r.text}"
    # Only the room_added push can tell the running agent about the room: it joins it.
    await agent.wait_log(f"Agent joined room: {world.side_room}")

    posted = await post_mention(world, world.side_room, "welcome to the side room")
    turn = await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])
    assert turn["room_id"] == world.side_room
    await agent.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])
    await wait_reply(world, world.side_room, posted)
    await wait_processed(world, world.side_room, posted["id"])
    world.assert_wire_clean()


# --------------------------------------------------------------------------- scenario 4


async def test_turn_that_raises_is_marked_failed_and_reported(world: World) -> None:
    agent = world.spawn("failing_agent.py", "failing")
    await agent.wait_event("ready", within=60)

    posted = await post_mention(world, world.room, "please fail")
    await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])

    async def error_event() -> dict[str, Any] | None:
        msgs = await world.human.messages(world.room)
        errors = [
            m for m in msgs if m["message_type"] == "error" and m["sender_id"] == world.agent.id
        ]
        return errors[0] if errors else None

    err = await wait_for(
        error_event, within=30, what="the SDK's error event", diagnostics=world.diagnostics
    )
    assert err["content"] == GENERIC_FAILURE
    failure = (err.get("metadata") or {}).get("failure") or {}
    assert failure.get("provider") == "band-runtime", err

    # failed is not terminal: /next serves the message again, with its failed status.
    async def failed_on_next() -> dict[str, Any] | None:
        r = await world.agent_api.next_message(world.room)
        assert r.status_code == 200, f"/next after failure: {r.status_code} {r.text}"
        msg: dict[str, Any] = r.json()["data"]
        assert msg["id"] == posted["id"], msg
        status = delivery_of(msg, world.agent.id)
        return status if status and status.get("status") == "failed" else None

    status = await wait_for(
        failed_on_next,
        within=20,
        what="/next to show the failed delivery",
        diagnostics=world.diagnostics,
    )
    attempts = status.get("attempts") or []
    errors = [a.get("error") for a in attempts if a.get("status") == "failed"]
    assert any(FAILURE_TEXT in (e or "") for e in errors), status

    # The person sees the same status on the message in the room listing.
    msgs = await world.human.messages(world.room)
    mine = next((m for m in msgs if m["id"] == posted["id"]), None)
    assert mine is not None, f"message {posted['id']} missing from the listing"
    seen = delivery_of(mine, world.agent.id)
    assert seen is not None and seen.get("status") == "failed", seen
    # The failed turn produced no reply.
    assert not [m for m in msgs if m["sender_id"] == world.agent.id and m["message_type"] == "text"]


# --------------------------------------------------------------------------- scenario 5


async def test_second_connection_supersedes_the_first(world: World) -> None:
    first = world.spawn("echo_agent.py", "first", single_instance=False)
    await first.wait_event("ready", within=60)
    warmup = await post_mention(world, world.room, "one")
    await first.wait_event("replied", match=lambda e: e["message_id"] == warmup["id"])
    await wait_processed(world, world.room, warmup["id"])

    second = world.spawn("echo_agent.py", "second", single_instance=False)
    await second.wait_event("ready", within=60)
    await first.wait_event("superseded", within=20, what="the first agent to be superseded")

    posted = await post_mention(world, world.room, "two")
    turn = await second.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])
    assert turn["room_id"] == world.room
    await second.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])
    await wait_reply(world, world.room, posted)
    await wait_processed(world, world.room, posted["id"])

    await asyncio.sleep(2)
    assert first.turns_for(posted["id"]) == [], first.diagnostics()
    assert len(second.turns_for(posted["id"])) == 1
    world.assert_wire_clean()


# --------------------------------------------------------------------------- beyond the five


async def test_agent_reconnects_after_server_crash_and_drains(world: World) -> None:
    """kill -9 the server under a connected agent; after restart the SDK reconnects, rejoins
    and answers both a message it must fetch with /next and one pushed afterwards."""
    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)
    first = await post_mention(world, world.room, "before the crash")
    await agent.wait_event("replied", match=lambda e: e["message_id"] == first["id"])
    await wait_processed(world, world.room, first["id"])

    world.server.kill9()
    await world.server.start()  # same data folder, same port
    missed = await post_mention(world, world.room, "while you were reconnecting")
    await agent.wait_event("replied", within=60, match=lambda e: e["message_id"] == missed["id"])
    await wait_processed(world, world.room, missed["id"])

    after = await post_mention(world, world.room, "after the reconnect")
    await agent.wait_event("replied", match=lambda e: e["message_id"] == after["id"])
    await wait_processed(world, world.room, after["id"])
    for m in (first, missed, after):
        assert len(agent.turns_for(m["id"])) == 1, agent.diagnostics()


async def test_on_conflict_reject_refuses_a_second_connection(world: World) -> None:
    """`on_conflict=reject` while a live socket exists: 409 connection_conflict, so the official
    client fails to start with AgentAlreadyRunningError; the first agent keeps working."""
    first = world.spawn("echo_agent.py", "first", single_instance=False)
    await first.wait_event("ready", within=60)

    second = world.spawn("echo_agent.py", "second", single_instance=False, conflict_policy="reject")
    failed = await second.wait_event("start_failed", within=60)
    assert failed["error"] == "AgentAlreadyRunningError", failed
    assert first.events("superseded") == [], first.diagnostics()

    posted = await post_mention(world, world.room, "still there?")
    await first.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])
    await wait_processed(world, world.room, posted["id"])


async def test_messages_not_mentioning_the_agent_are_not_delivered(world: World) -> None:
    """The official client turns EVERY pushed message_created into a turn: the server must push
    only text that mentions the agent. A mention of another agent, and the agent's own events,
    must never reach it as a turn."""
    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)

    r = await world.human.post_message(
        world.room, f"@{world.other.handle} not for echo", [world.other.id]
    )
    assert r.status_code in (200, 201), f"POST messages: {r.status_code} {r.text}"
    unrelated = r.json()["data"]["id"]
    posted = await post_mention(world, world.room, "this one is yours")
    await agent.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])
    await wait_processed(world, world.room, posted["id"])

    await asyncio.sleep(2)
    turns = [e["message_id"] for e in agent.events("turn")]
    assert turns == [posted["id"]], f"unexpected turns {turns} (unrelated was {unrelated})"
    world.assert_wire_clean()


@pytest.mark.slow
async def test_heartbeat_is_acknowledged(world: World) -> None:
    """The Phoenix client sends a heartbeat every 30 s and force-closes the socket when no ack
    arrives: the server must answer on topic `phoenix` with the same ref."""
    agent = world.spawn("echo_agent.py", "echo")
    await agent.wait_event("ready", within=60)
    await agent.wait_log("Heartbeat acknowledged", within=50)
    assert "Forcing connection close" not in agent.log_text(), agent.diagnostics()
    posted = await post_mention(world, world.room, "still alive after a heartbeat?")
    await agent.wait_event("replied", match=lambda e: e["message_id"] == posted["id"])
    world.assert_wire_clean()
