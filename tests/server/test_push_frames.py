"""A push's frame is the same text as ``json.dumps`` of its five parts always gave, for every
subscriber, with its frame head built once at its join and the payload encoded once."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from band_server.fanout.bus import Broadcast
from band_server.realtime.hub import Hub, payload_text, push_head, push_tail
from band_server.services.principals import Principal

TOPIC = "chat_room:r-1"


@dataclass
class FakeConn:
    id: str
    principal: Principal
    frames: list[str] = field(default_factory=list)

    def send_text(self, frame: str) -> None:
        self.frames.append(frame)

    def close(self, code: int) -> None:
        pass


def as_before(join_ref: str | None, topic: str, event: str, payload: Any) -> str:
    """How a push was written before frames were built from a head and a tail."""
    body = json.dumps(payload, separators=(",", ":"))
    return f"[{json.dumps(join_ref)},null,{json.dumps(topic)},{json.dumps(event)},{body}]"


PAYLOADS: list[Any] = [
    {},
    {"id": "m-1", "content": "@[[u-1]] pong", "seq": 7, "metadata": {"mentions": []}},
    {"content": 'héllo \u2028 \U0001f600 "quoted" back\\slash \x00\x1f\t\n', "n": None},
    {"floats": [1e-05, 1.5e-07, 1e16, 0.1, -0.0, float("nan"), float("inf")], "big": 2**70},
    {"nested": {"list": [1, [2, {"x": True, "y": False}], ()]}, "lone": "\ud800"},
]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_payload_is_encoded_as_json_dumps_compact(payload: Any) -> None:
    assert payload_text(payload) == json.dumps(payload, separators=(",", ":"))


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_broadcasts_wire_text_is_json_dumps_compact(payload: Any) -> None:
    """What the Redis bus publishes: the members as ``json.dumps`` wrote them, every node of
    an earlier version decodes it."""
    b = Broadcast(
        TOPIC, "message_created", payload, agents=frozenset({"a-2", "a-1"}), meta={"k": 1}
    )
    members = {
        "topic": b.topic,
        "event": b.event,
        "payload": payload,
        "agents": ["a-1", "a-2"],
        "users": True,
        "exclude_conn": None,
        "meta": {"k": 1},
        "published_at": b.published_at,
    }
    assert b.to_json() == json.dumps(members, separators=(",", ":"))


@pytest.mark.parametrize("join_ref", [None, "1", "42", 'é"\\'])
@pytest.mark.parametrize("topic", [TOPIC, "chat_room:ü\n"])
def test_head_and_tail_make_the_frame_json_dumps_gave(join_ref: str | None, topic: str) -> None:
    payload = PAYLOADS[2]
    text = payload_text(payload)
    frame = push_head(join_ref) + push_tail(topic, "message_created", text)
    assert frame == as_before(join_ref, topic, "message_created", payload)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_every_subscriber_gets_the_frame_of_its_own_join(payload: Any) -> None:
    hub = Hub()
    person = FakeConn("c-1", Principal("user", "u-1", "Alice", "alice"))
    agent = FakeConn("c-2", Principal("agent", "a-1", "Echo", "echo"))
    other = FakeConn("c-3", Principal("agent", "a-2", "Other", "other"))
    for conn, ref in ((person, "3"), (agent, "7"), (other, "9")):
        hub.register(conn)
        hub.join(conn, TOPIC, ref)
    b = Broadcast(TOPIC, "message_created", payload, agents=frozenset({"a-1"}), users=True)
    asyncio.run(hub.deliver(b))
    assert person.frames == [as_before("3", TOPIC, "message_created", payload)]
    assert agent.frames == [as_before("7", TOPIC, "message_created", payload)]
    assert other.frames == []  # not named by the broadcast
    # A join again under a new ref: the frames carry the new one.
    hub.join(person, TOPIC, "11")
    asyncio.run(hub.deliver(b))
    assert person.frames[-1] == as_before("11", TOPIC, "message_created", payload)
    assert hub.join_ref(person, TOPIC) == "11"
