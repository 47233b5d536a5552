"""A push's frame is the same text as ``json.dumps`` of its five parts always gave, for every
subscriber, with its frame head built once at its join and the payload encoded once."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from typing import Any

import pytest

from band_server.fanout import broadcast as broadcast_module
from band_server.fanout.broadcast import payload_text, pushed
from band_server.fanout.bus import Broadcast
from band_server.realtime.hub import Hub, push_head, push_tail
from band_server.services.identity.principals import Principal

TOPIC = "chat_room:r-1"


@dataclass
class FakeConn:
    id: str
    principal: Principal
    frames: list[str] = field(default_factory=list)
    claim_on_push: str | None = None

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


def wire_members(b: Broadcast, payload: Any) -> dict[str, Any]:
    """What a node of an earlier version decodes from a broadcast's wire text."""
    return {
        "topic": b.topic,
        "event": b.event,
        "payload": payload,
        "agents": ["a-1", "a-2"],
        "users": True,
        "exclude_conn": None,
        "meta": {"k": 1},
        "published_at": b.published_at,
    }


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_broadcasts_wire_text_carries_the_payloads_text_and_decodes_as_before(
    payload: Any,
) -> None:
    """What the Redis bus publishes: one JSON object with the members a node of an earlier
    version reads (plus ``at``, where the payload starts), and the payload as ``json.dumps``
    wrote it, last."""
    b = Broadcast(
        TOPIC, "message_created", payload, agents=frozenset({"a-2", "a-1"}), meta={"k": 1}
    )
    wire = b.to_wire('{"origin":"0123456789abcdef",')
    decoded = json.loads(wire)
    assert decoded.pop("origin") == "0123456789abcdef"
    at = int(decoded.pop("at"))
    assert json.dumps(decoded, sort_keys=True) == json.dumps(
        wire_members(b, payload), sort_keys=True
    )
    body = json.dumps(payload, separators=(",", ":"))
    assert wire[at:] == body + "}" and b.payload_json == body


@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_broadcast_read_off_the_wire_is_the_same_and_keeps_the_payloads_text(
    payload: Any,
) -> None:
    b = Broadcast(
        TOPIC, "message_created", payload, agents=frozenset({"a-2", "a-1"}), meta={"k": 1}
    )
    opening = '{"origin":"0123456789abcdef",'
    heard = Broadcast.from_wire(b.to_wire(opening).encode(), len(opening))
    assert heard.payload_json == b.payload_json  # pushed as it came, never re-encoded
    assert heard.published_at == b.published_at
    older_text = json.dumps(wire_members(b, payload), separators=(",", ":")).encode()
    older = Broadcast.from_wire(older_text)  # an earlier version's broadcast: no ``at``
    assert older.payload_json == b.payload_json
    for got in (heard, older):
        assert header(got) == header(b)
        assert json.dumps(got.payload) == json.dumps(payload)  # decoded on demand (NaN != NaN)


def header(b: Broadcast) -> tuple[Any, ...]:
    return (b.topic, b.event, b.agents, b.users, b.exclude_conn, b.meta, b.published_at)


def test_a_broadcast_with_an_outsized_header_is_decoded_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A header too long for ``at``'s digits: the wire text has no ``at``, readers decode it
    all (the real bound is 10**8 bytes)."""
    monkeypatch.setattr(broadcast_module, "_MAX_AT", 40)
    b = Broadcast(TOPIC, "e", {"x": 1}, meta={"revoke": ["t" * 60]})
    wire = b.to_wire()
    assert '"at":"' not in wire[:20]
    heard = Broadcast.from_wire(wire.encode())
    assert heard == b and heard.payload_json == '{"x":1}'


@pytest.mark.parametrize(
    "raw",
    [b'{"at":"00000012","topic":"t","event":"e"}', b'{"at":"0000003x","topic":"t"}', b"{", b"[]"],
)
def test_what_is_not_a_broadcast_is_refused(raw: bytes) -> None:
    with pytest.raises((ValueError, KeyError, TypeError)):
        Broadcast.from_wire(raw)


@pytest.mark.parametrize("at", ["00000005", "0000003x", "99999999"])
def test_a_broadcast_whose_at_is_wrong_is_decoded_whole(at: str) -> None:
    raw = f'{{"at":"{at}","topic":"t","event":"e","payload":{{"x":1}}}}'.encode()
    heard = Broadcast.from_wire(raw)
    assert heard == Broadcast("t", "e", {"x": 1}) and heard.payload_json == '{"x":1}'


@pytest.mark.parametrize("field", ["topic", "meta", "_payload", "_payload_json", "other"])
def test_a_broadcast_is_immutable(field: str) -> None:
    made = Broadcast(TOPIC, "e", {"x": 1}, meta={"m": 1}, published_at=2.0, payload_json='{"x":1}')
    heard = Broadcast.from_wire(made.to_wire().encode())
    for b in (made, heard, pushed(TOPIC, "e", {"x": 1}, None, None)):
        assert type(b) is Broadcast  # not the class it is filled in as
        with pytest.raises(AttributeError):
            setattr(b, field, "other")
    assert (heard.meta, heard.published_at, heard.payload_json) == ({"m": 1}, 2.0, '{"x":1}')


@pytest.mark.parametrize("agents", [None, frozenset(), frozenset({"a-1", "a-2"})])
@pytest.mark.parametrize("payload_json", [None, '{"x":1}'])
def test_pushed_is_the_broadcast_the_class_makes(
    agents: frozenset[str] | None, payload_json: str | None
) -> None:
    before = time.time()
    made = pushed(TOPIC, "message_created", {"x": 1}, agents, payload_json)
    same = Broadcast(TOPIC, "message_created", {"x": 1}, agents, payload_json=payload_json)
    assert type(made) is Broadcast and made == same
    for name in (*broadcast_module._FIELDS[:-1], "_payload", "_payload_json"):
        assert getattr(made, name) == getattr(same, name), name
    assert before <= made.published_at <= time.time()
    assert {**made._header(), "published_at": 0} == {**same._header(), "published_at": 0}
    assert made.payload_json == same.payload_json


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


@pytest.mark.parametrize("agents", [None, frozenset(), frozenset({"a-1"})])
@pytest.mark.parametrize("users", [True, False])
@pytest.mark.parametrize("exclude", [None, "c-1", "c-2", "c-3"])
def test_the_hub_routes_each_socket_by_the_rule(
    agents: frozenset[str] | None, users: bool, exclude: str | None
) -> None:
    """The routing rule (``realtime.hub``), socket by socket: a person's socket when the
    broadcast is for users, an agent's when it names no agents or names that one; never the
    excluded connection."""
    hub = Hub()
    conns = [
        FakeConn("c-1", Principal("user", "u-1", "Alice", "alice")),
        FakeConn("c-2", Principal("agent", "a-1", "Echo", "echo")),
        FakeConn("c-3", Principal("agent", "a-2", "Other", "other")),
    ]
    for conn in conns:
        hub.register(conn)
        hub.join(conn, TOPIC, "1")
    hub.push(Broadcast(TOPIC, "e", {}, agents=agents, users=users, exclude_conn=exclude))
    for conn in conns:
        p = conn.principal
        wanted = (agents is None or p.id in agents) if p.kind == "agent" else users
        assert len(conn.frames) == (wanted and conn.id != exclude), (conn.id, conn.frames)
