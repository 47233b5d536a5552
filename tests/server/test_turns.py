"""A turn's steps: tool calls paired with their results by id and timed, usage, thoughts, the
reply, in order; and a turn is only for people in the room."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
from socket_testkit import make_room
from sqlalchemy import select
from web_testkit import sign_in

from band_server.context import Platform
from band_server.services.turns import rows_of_turn, steps_of
from band_server.store.models import Message
from conftest import Seeded, make_user

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def event(
    seq: int, kind: str, content: str, ms: int, meta: dict[str, object] | None = None
) -> Message:
    return Message(
        id=f"m{seq}", room_id="r", seq=seq, sender_id="a", sender_type="Agent",
        message_type=kind, content=content, meta=meta or {},
        created_at=T0 + timedelta(milliseconds=ms), updated_at=T0,
    )  # fmt: skip


def test_steps_pair_tool_calls_with_results_and_time_them() -> None:
    rows = [
        event(1, "tool_call", json.dumps({"name": "a", "args": {"x": 1}, "tool_call_id": "1"}), 0),
        event(2, "tool_call", json.dumps({"name": "b", "args": {}, "tool_call_id": "2"}), 10),
        event(3, "tool_result", json.dumps({"tool_call_id": "2", "output": "Error: no"}), 30),
        event(4, "tool_result", json.dumps({"tool_call_id": "1", "output": "ok"}), 250),
        event(5, "thought", "hm", 260),
        event(6, "task", "usage", 270, {"band_usage": {"input_tokens": 3, "output_tokens": 4}}),
        event(7, "text", "done", 300),
        event(8, "tool_call", json.dumps({"name": "c", "args": {}, "tool_call_id": "3"}), 310),
    ]
    steps = steps_of(rows)
    assert [(s["kind"], s.get("name")) for s in steps] == [
        ("tool", "a"), ("tool", "b"), ("thought", None), ("usage", None), ("reply", None),
        ("tool", "c"),
    ]  # fmt: skip
    a, b, c = steps[0], steps[1], steps[5]
    assert (a["result"], a["duration_ms"], a["failed"]) == ("ok", 250, False)
    assert (b["result"], b["duration_ms"], b["failed"]) == ("Error: no", 20, True)
    assert (c["result"], c["duration_ms"]) == (None, None)  # still running
    assert steps[3]["usage"] == {"input_tokens": 3, "output_tokens": 4}


async def test_a_turn_is_only_for_people_in_the_room(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    sent = await client.post(
        f"/api/v1/me/chats/{room}/messages",
        headers={"X-API-Key": seeded.user_key},
        json={"message": {"content": f"@{seeded.agent_handle} hi"}},
    )
    message = sent.json()["data"]["id"]
    path = f"/rooms/{room}/turns/{message}/{seeded.agent_id}"
    _, bob_key = await make_user(platform, "bob")
    await sign_in(client, bob_key)
    assert (await client.get(path, headers={"Accept": "application/json"})).status_code == 404
    client.cookies.clear()
    await sign_in(client, seeded.user_key)
    turn = (await client.get(path, headers={"Accept": "application/json"})).json()
    assert turn["status"] == "delivered" and turn["running"] is True and turn["steps"] == []
    nobody = await client.get(f"/rooms/{room}/turns/{message}/{seeded.user_id}")
    assert nobody.status_code == 404


def test_a_turn_takes_its_own_tagged_posts_else_the_untagged_ones_until_it_ended() -> None:
    """Two turns of one agent interleaved: each takes the posts tagged with its message; an
    agent that tags nothing keeps the time window; another turn's posts never leak in."""
    rows = [
        event(1, "thought", "on one", 0, {"turn_id": "one"}),
        event(2, "thought", "on two", 10, {"turn_id": "two"}),
        event(3, "text", "reply one", 20, {"turn_id": "one"}),
        event(4, "text", "untagged", 30),
        event(5, "text", "reply two", 40, {"turn_id": "two"}),
        event(6, "thought", "later, untagged", 5000),
    ]
    assert [m.content for m in rows_of_turn(rows, "one", None)] == ["on one", "reply one"]
    assert [m.content for m in rows_of_turn(rows, "two", T0)] == ["on two", "reply two"]
    ended = T0 + timedelta(milliseconds=100)
    assert [m.content for m in rows_of_turn(rows, "three", ended)] == ["untagged"]
    assert [m.content for m in rows_of_turn(rows, "three", None)] == [
        "untagged", "later, untagged"
    ]  # fmt: skip


async def test_an_agents_reply_keeps_its_turn_id_and_a_persons_does_not(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    said = {"content": "hi", "mentions": [{"id": seeded.agent_id}], "turn_id": "forged"}
    person = await client.post(
        f"/api/v1/me/chats/{room}/messages",
        headers={"X-API-Key": seeded.user_key},
        json={"message": said},
    )
    assert person.status_code == 201, person.text
    reply = {"content": "hello", "mentions": [{"id": seeded.user_id}], "turn_id": "msg-1"}
    agent = await client.post(
        f"/api/v1/agent/chats/{room}/messages",
        headers={"X-API-Key": seeded.agent_key},
        json={"message": reply},
    )
    assert agent.status_code == 201, agent.text
    async with platform.db.read() as session:
        metas = {
            m.sender_type: m.meta
            for m in await session.scalars(select(Message).where(Message.room_id == room))
        }
    assert "turn_id" not in metas["User"]
    assert metas["Agent"]["turn_id"] == "msg-1"
