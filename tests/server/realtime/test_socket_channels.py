"""Joins, leaves, heartbeats and malformed frames on an accepted socket."""

from __future__ import annotations

import pytest
from socket_testkit import make_room, phx, seed

from band_server.realtime.hub import Connection
from conftest import LiveServer, Seeded, make_agent, make_user

OK = {"status": "ok", "response": {}}
REFUSED = {"status": "error", "response": {"reason": "unauthorized"}}


@pytest.fixture
async def s(live_server: LiveServer) -> Seeded:
    return await seed(live_server.platform)


async def test_agent_joins_every_topic_kind_it_owns(live_server: LiveServer, s: Seeded) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as c:
        for topic in (
            f"agent_control:{s.agent_id}",
            f"agent_rooms:{s.agent_id}",
            f"agent_contacts:{s.agent_id}",
            f"chat_room:{room}",
            f"room_participants:{room}",
        ):
            reply = await c.join(topic)
            ref = c.join_refs[topic]
            # The join reply echoes join_ref and ref, on the joined topic.
            assert reply == [ref, ref, topic, "phx_reply", OK]


async def test_person_joins_own_rooms_topic_and_room_topics(
    live_server: LiveServer, s: Seeded
) -> None:
    room = await make_room(live_server.platform, s.user_id)
    async with phx(live_server.ws_url, s.user_key) as c:
        for topic in (f"user_rooms:{s.user_id}", f"chat_room:{room}", f"room_participants:{room}"):
            assert (await c.join(topic))[4] == OK


async def test_agent_may_not_join_another_agents_topics(live_server: LiveServer, s: Seeded) -> None:
    other_id, _, _ = await make_agent(live_server.platform, s.user_id, "Other")
    async with phx(live_server.ws_url, s.agent_key) as c:
        for kind in ("agent_control", "agent_rooms", "agent_contacts"):
            reply = await c.join(f"{kind}:{other_id}")
            assert reply[4] == REFUSED
        assert (await c.join(f"user_rooms:{s.user_id}"))[4] == REFUSED


async def test_room_topics_need_active_participation(live_server: LiveServer, s: Seeded) -> None:
    bob_id, _ = await make_user(live_server.platform, "bob")
    room = await make_room(live_server.platform, bob_id)
    async with (
        phx(live_server.ws_url, s.agent_key) as agent,
        phx(live_server.ws_url, s.user_key) as person,
    ):
        for c in (agent, person):
            assert (await c.join(f"chat_room:{room}"))[4] == REFUSED
            assert (await c.join(f"room_participants:{room}"))[4] == REFUSED
            assert (await c.join("chat_room:no-such-room"))[4] == REFUSED


async def test_person_may_not_join_agent_or_other_peoples_topics(
    live_server: LiveServer, s: Seeded
) -> None:
    bob_id, _ = await make_user(live_server.platform, "bob")
    async with phx(live_server.ws_url, s.user_key) as c:
        for topic in (
            f"agent_control:{s.agent_id}",
            f"agent_rooms:{s.agent_id}",
            f"agent_contacts:{s.agent_id}",
            f"user_rooms:{bob_id}",
            f"agent_rooms:{s.user_id}",
        ):
            assert (await c.join(topic))[4] == REFUSED


async def test_malformed_or_unknown_topics_are_refused(live_server: LiveServer, s: Seeded) -> None:
    topics = ["agent_control", "agent_control:", "nonsense:abc", "tasks:x", "phoenix", "a" * 300]
    async with phx(live_server.ws_url, s.agent_key) as c:
        for topic in topics:
            assert (await c.join(topic))[4]["status"] == "error", topic
        assert (await c.heartbeat())[4] == OK


async def test_heartbeat_gets_ok_reply_on_phoenix_topic(live_server: LiveServer, s: Seeded) -> None:
    async with phx(live_server.ws_url, s.agent_key) as c:
        await c.send([None, "7", "phoenix", "heartbeat", {}])
        assert await c.recv() == [None, "7", "phoenix", "phx_reply", OK]


async def test_leave_replies_ok_and_stops_pushes(live_server: LiveServer, s: Seeded) -> None:
    topic = f"agent_control:{s.agent_id}"
    async with phx(live_server.ws_url, s.agent_key) as c:
        await c.join(topic)
        join_ref = c.join_refs[topic]
        reply = await c.leave(topic)
        assert reply[0] == join_ref
        assert reply[2:] == [topic, "phx_reply", OK]
        assert live_server.platform.hub.join_ref(_conn(live_server, s.agent_id), topic) is None
        # Leaving a topic that was never joined is harmless.
        assert (await c.leave(f"agent_rooms:{s.agent_id}"))[4] == OK


async def test_rejoin_uses_the_new_join_ref(live_server: LiveServer, s: Seeded) -> None:
    topic = f"agent_control:{s.agent_id}"
    async with phx(live_server.ws_url, s.agent_key) as c:
        await c.join(topic)
        await c.join(topic)
        hub = live_server.platform.hub
        assert hub.join_ref(_conn(live_server, s.agent_id), topic) == c.join_refs[topic] == "2"


MALFORMED_WITH_REF = [
    ('["1", "9", "phoenix", "heartbeat"]', "frame must be [join_ref, ref, topic, event, payload]"),
    ('["1", "9", "phoenix", "heartbeat", []]', "payload must be an object"),
    ('["1", "9", "phoenix", "heartbeat", "x"]', "payload must be an object"),
    ('["1", "9", "phoenix", "dance", {}]', "unknown event"),
    ('["1", "9", 42, "phx_join", {}]', "topic must be a non-empty string"),
    ('["1", "9", "chat_room:x", null, {}]', "event must be a non-empty string"),
    ('[null, 9, "phoenix", "nope", {}]', "unknown event"),
]
WITHOUT_REF = ["not json", "{}", "[]", "42", '{"ref": "1"}', "[null, null]", "\u0000", "[" * 50000]


async def test_malformed_frames_with_a_ref_get_error_replies(
    live_server: LiveServer, s: Seeded
) -> None:
    async with phx(live_server.ws_url, s.agent_key) as c:
        for raw, reason in MALFORMED_WITH_REF:
            await c.send_raw(raw)
            frame = await c.recv()
            assert (frame[1], frame[3]) == ("9", "phx_reply"), raw
            assert frame[4] == {"status": "error", "response": {"reason": reason}}, raw
        assert (await c.heartbeat())[4] == OK


async def test_frames_without_a_ref_are_ignored_and_socket_survives(
    live_server: LiveServer, s: Seeded
) -> None:
    async with phx(live_server.ws_url, s.agent_key) as c:
        for raw in WITHOUT_REF:
            await c.send_raw(raw)
        await c.ws.send(b"\x01binary")
        # The first frame back answers the heartbeat: nothing was sent for the junk.
        await c.send([None, "hb", "phoenix", "heartbeat", {}])
        assert await c.recv() == [None, "hb", "phoenix", "phx_reply", OK]


async def test_custom_events_are_answered_with_an_error(live_server: LiveServer, s: Seeded) -> None:
    topic = f"agent_control:{s.agent_id}"
    async with phx(live_server.ws_url, s.agent_key) as c:
        await c.join(topic)
        await c.send(["1", "50", topic, "shout", {}])
        assert (await c.reply_to("50"))[4]["response"] == {"reason": "unknown event"}
        await c.send([None, "51", f"agent_rooms:{s.agent_id}", "shout", {}])
        assert (await c.reply_to("51"))[4]["response"] == {"reason": "unmatched topic"}


async def test_a_bad_socket_does_not_disturb_others(live_server: LiveServer, s: Seeded) -> None:
    async with (
        phx(live_server.ws_url, s.user_key) as good,
        phx(live_server.ws_url, s.agent_key) as bad,
    ):
        for raw in ("[", '["1","2"]', "[1,2,3,4,5]", "null"):
            await bad.send_raw(raw)
        assert (await good.heartbeat())[4] == OK
        assert (await bad.heartbeat())[4] == OK


def _conn(live_server: LiveServer, principal_id: str) -> Connection:
    conns = live_server.platform.hub.connections_of(principal_id)
    assert len(conns) == 1
    return conns[0]
