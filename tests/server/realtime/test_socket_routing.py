"""Pushes: per-socket routing, join_ref echo, revocation, and one live socket per agent."""

from __future__ import annotations

import asyncio
import json

import pytest
from socket_testkit import make_room, phx, seed
from websockets.exceptions import ConnectionClosed

from band_server.fanout.bus import Broadcast
from band_server.services import unit
from band_server.services.identity import accounts
from band_server.services.rooms import membership as rooms
from conftest import LiveServer, Seeded


@pytest.fixture
async def s(live_server: LiveServer) -> Seeded:
    return await seed(live_server.platform)


def message(room: str, text: str) -> dict[str, object]:
    return {"id": text, "chat_room_id": room, "content": text, "message_type": "text"}


async def test_agent_gets_only_messages_naming_it_person_gets_all(
    live_server: LiveServer, s: Seeded
) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    topic = f"chat_room:{room}"
    async with (
        phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as agent,
        phx(live_server.ws_url, s.user_key) as person,
    ):
        await agent.join(f"agent_control:{s.agent_id}")
        await agent.join(topic)
        await person.join(topic)
        bus = live_server.platform.bus
        await bus.publish(
            Broadcast(
                topic, "message_created", message(room, "for-agent"), agents=frozenset({s.agent_id})
            )
        )
        await bus.publish(
            Broadcast(topic, "message_created", message(room, "for-nobody"), agents=frozenset())
        )

        frame = await agent.recv()
        # Every push echoes this socket's join_ref for the topic, with a null ref.
        assert frame == [
            agent.join_refs[topic],
            None,
            topic,
            "message_created",
            message(room, "for-agent"),
        ]
        assert await agent.silent(0.3)

        first, second = await person.recv(), await person.recv()
        assert [first[4]["id"], second[4]["id"]] == ["for-agent", "for-nobody"]
        assert first[0] == second[0] == person.join_refs[topic]


async def test_user_only_and_agent_only_broadcasts(live_server: LiveServer, s: Seeded) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    topic = f"chat_room:{room}"
    async with (
        phx(live_server.ws_url, s.agent_key) as agent,
        phx(live_server.ws_url, s.user_key) as person,
    ):
        await agent.join(topic)
        await person.join(topic)
        bus = live_server.platform.bus
        await bus.publish(
            Broadcast(topic, "message_updated", message(room, "u"), agents=frozenset())
        )
        await bus.publish(Broadcast(topic, "event_created", message(room, "a"), users=False))
        assert (await person.recv())[4]["id"] == "u"
        assert (await agent.recv())[4]["id"] == "a"
        assert await agent.silent(0.2)
        assert await person.silent(0.1)


async def test_pushes_reach_only_the_topics_joined(live_server: LiveServer, s: Seeded) -> None:
    room = await make_room(live_server.platform, s.user_id, s.agent_id)
    async with phx(live_server.ws_url, s.agent_key) as agent:
        await agent.join(f"agent_rooms:{s.agent_id}")
        await live_server.platform.bus.publish(
            Broadcast(f"chat_room:{room}", "message_created", message(room, "x"))
        )
        assert await agent.silent(0.3)


async def test_room_removed_revokes_room_topics(live_server: LiveServer, s: Seeded) -> None:
    platform = live_server.platform
    room = await make_room(platform, s.user_id, s.agent_id)
    chat = f"chat_room:{room}"
    async with phx(live_server.ws_url, s.agent_key) as agent:
        await agent.join(f"agent_rooms:{s.agent_id}")
        await agent.join(chat)
        await agent.join(f"room_participants:{room}")

        # Removal through the service: commit first, then the bus carries room_removed + revoke.
        async with unit.write(platform) as uow:
            owner = accounts.user_principal(await accounts.get_user(uow.session, s.user_id))
            room_row = await rooms.get_room(uow.session, room)
            _, broadcasts = await rooms.remove_participant(uow.session, owner, room_row, s.agent_id)
            uow.emit(*broadcasts)

        gone = await agent.recv()
        assert gone[2:4] == [f"room_participants:{room}", "participant_removed"]
        assert gone[4]["id"] == s.agent_id
        removed = await agent.recv()
        assert removed[2:4] == [f"agent_rooms:{s.agent_id}", "room_removed"]
        assert removed[4]["id"] == room
        await platform.bus.publish(Broadcast(chat, "message_created", message(room, "late")))
        assert await agent.silent(0.3)
        # And it can't subscribe again: it is no longer a participant.
        assert (await agent.join(chat))[4]["status"] == "error"


async def test_second_agent_socket_supersedes_the_first(live_server: LiveServer, s: Seeded) -> None:
    control = f"agent_control:{s.agent_id}"
    hub = live_server.platform.hub
    async with phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as old:
        await old.join(control)
        async with phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as new:
            push = await old.recv()
            assert push[:4] == [old.join_refs[control], None, control, "supersede"]
            payload = push[4]
            assert payload["reason"] == "superseded"
            assert payload["retryable"] is False
            assert isinstance(payload["message"], str) and payload["message"]
            assert isinstance(payload["correlation_id"], str) and payload["correlation_id"]

            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(old.ws.recv(), 3)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1008

            # The new socket is the live one, and is not told to go away itself.
            await new.join(control)
            assert (await new.heartbeat())[4]["status"] == "ok"
            for _ in range(100):
                if len(hub.connections_of(s.agent_id)) == 1:
                    break
                await asyncio.sleep(0.02)
            assert len(hub.connections_of(s.agent_id)) == 1
            assert hub.is_online(s.agent_id)


async def test_people_may_hold_several_sockets(live_server: LiveServer, s: Seeded) -> None:
    async with (
        phx(live_server.ws_url, s.user_key) as one,
        phx(live_server.ws_url, s.user_key) as two,
    ):
        assert (await one.heartbeat())[4]["status"] == "ok"
        assert (await two.heartbeat())[4]["status"] == "ok"
        assert len(live_server.platform.hub.connections_of(s.user_id)) == 2


async def test_push_payload_is_plain_json(live_server: LiveServer, s: Seeded) -> None:
    async with phx(live_server.ws_url, s.user_key) as person:
        topic = f"user_rooms:{s.user_id}"
        await person.join(topic)
        payload = {"id": "r1", "title": 'ünïcode "quoted"', "inserted_at": "t", "updated_at": "t"}
        await live_server.platform.bus.publish(Broadcast(topic, "room_added", payload))
        raw = await asyncio.wait_for(person.ws.recv(), 3)
        assert json.loads(raw)[4] == payload


async def test_a_fan_out_gap_makes_agent_sockets_resync_once(
    live_server: LiveServer, s: Seeded
) -> None:
    """A node that may have missed broadcasts (its Redis subscription was down, or another
    node could not publish) closes its agent sockets with 1012, so each reconnects and drains
    /next; people's sockets stay; a note about a gap that ended before a socket opened
    changes nothing for it."""
    import time

    from band_server.fanout.bus import gap_note

    hub = live_server.platform.hub
    async with (
        phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as agent,
        phx(live_server.ws_url, s.user_key) as person,
    ):
        await agent.join(f"agent_control:{s.agent_id}")
        before = time.time()
        await hub.deliver(gap_note(before - 5, before))
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(agent.ws.recv(), 3)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
        assert (await person.heartbeat())[4]["status"] == "ok"
    async with phx(live_server.ws_url, s.agent_key, agent_id=s.agent_id) as again:
        await again.join(f"agent_control:{s.agent_id}")
        assert hub.resync_agents(before - 5, before - 1) == 0  # that gap was resynced already
        await hub.deliver(gap_note(before - 5, before - 1))  # over before this socket opened
        assert (await again.heartbeat())[4]["status"] == "ok"
