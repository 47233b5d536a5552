"""BandRestClient against the real platform app, in-process (httpx.ASGITransport)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from band.platform import BandRestClient, BandRestError, MarkResult
from band.runtime.tools import AgentTools
from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.services.rooms import membership as rooms
from conftest import Seeded, make_agent


async def make_room(platform: Platform, owner_id: str, *member_ids: str) -> str:
    async with platform.db.write() as session:
        owner = accounts.user_principal(await accounts.get_user(session, owner_id))
        room, _ = await rooms.create_room(session, owner, title="Room", task_id=None)
        for pid in member_ids:
            await rooms.add_participant(session, owner, room, pid)
        return room.id


@pytest.fixture
async def rest(app: FastAPI, seeded: Seeded) -> AsyncIterator[BandRestClient]:
    transport = httpx.ASGITransport(app=app)
    async with BandRestClient("http://band.test", seeded.agent_key, transport=transport) as c:
        yield c


@pytest.fixture
async def room_id(platform: Platform, seeded: Seeded) -> str:
    return await make_room(platform, seeded.user_id, seeded.agent_id)


async def human_mention(client: httpx.AsyncClient, seeded: Seeded, room_id: str) -> str:
    response = await client.post(
        f"/api/v1/me/chats/{room_id}/messages",
        headers={"X-API-Key": seeded.user_key},
        json={"message": {"content": "hi echo", "mentions": [{"id": seeded.agent_id}]}},
    )
    assert response.status_code == 201, response.text
    return str(response.json()["data"]["id"])


async def test_me_and_rooms(rest: BandRestClient, seeded: Seeded, room_id: str) -> None:
    me = await rest.get_me()
    assert (me.id, me.name) == (seeded.agent_id, "Echo")
    rooms_found, metadata = await rest.list_chats()
    assert [r.id for r in rooms_found] == [room_id]
    assert metadata["total_pages"] == 1
    assert (await rest.get_chat(room_id)).id == room_id


async def test_unknown_room_is_a_typed_error(rest: BandRestClient) -> None:
    with pytest.raises(BandRestError) as info:
        await rest.get_participants("no-such-room")
    assert info.value.status == 404
    assert info.value.code == "not_found"
    assert info.value.request_id


async def test_delivery_lifecycle(
    rest: BandRestClient, client: httpx.AsyncClient, seeded: Seeded, room_id: str
) -> None:
    assert await rest.get_next(room_id) is None
    message_id = await human_mention(client, seeded, room_id)
    pending = await rest.get_next(room_id)
    assert pending is not None and pending["id"] == message_id
    assert await rest.mark_processed(room_id, message_id) is MarkResult.REJECTED
    assert await rest.mark_processing(room_id, message_id) is MarkResult.OK
    assert await rest.send_activity(room_id, True) is True
    assert await rest.mark_processed(room_id, message_id) is MarkResult.OK
    assert await rest.get_next(room_id) is None
    assert await rest.mark_processing(room_id, "nope") is MarkResult.NOT_FOUND
    context, _ = await rest.get_context(room_id)
    assert [m["id"] for m in context] == [message_id]


async def test_agent_tools_reply_and_events(
    rest: BandRestClient, client: httpx.AsyncClient, seeded: Seeded, room_id: str
) -> None:
    await human_mention(client, seeded, room_id)
    roster = await rest.get_participants(room_id)
    tools = AgentTools(room_id, rest, roster, agent_id=seeded.agent_id)
    before = rest.request_count
    sent = await tools.send_message("hello @alice", mentions=["alice"])
    assert sent["recipients"][0]["handle"] == "alice"
    await tools.send_event("thinking", "thought")
    assert rest.request_count - before == 2
    assert tools.turn.replied and tools.turn.complete
    context, _ = await rest.get_context(room_id)
    assert [(m["message_type"], m["sender_id"]) for m in context][-2:] == [
        ("text", seeded.agent_id),
        ("thought", seeded.agent_id),
    ]


async def test_add_participant_through_peers(
    rest: BandRestClient, platform: Platform, seeded: Seeded, room_id: str
) -> None:
    helper_id, _, helper_handle = await make_agent(platform, seeded.user_id, "Helper")
    tools = AgentTools(
        rest, room_id, participants=await rest.get_participants(room_id), agent_id=seeded.agent_id
    )
    peers = await tools.lookup_peers()
    assert [p["id"] for p in peers["data"]] == [helper_id]  # the owner is already in the room
    added = await tools.add_participant(helper_handle)
    assert added["status"] == "added"
    assert helper_id in [p["id"] for p in await rest.get_participants(room_id)]
    assert (await tools.add_participant(helper_id))["status"] == "already_in_room"
    removed = await tools.remove_participant("Helper")
    assert removed["status"] == "removed"


async def test_memories_round_trip(rest: BandRestClient) -> None:
    stored = await rest.store_memory(
        content="Alice likes tea",
        system="long_term",
        type="semantic",
        segment="user",
        thought="preference",
        scope="agent",
    )
    assert (await rest.get_memory(stored["id"]))["content"] == "Alice likes tea"
    listed, _ = await rest.list_memories(scope="agent")
    assert stored["id"] in [m["id"] for m in listed]
    assert (await rest.archive_memory(stored["id"]))["status"] == "archived"
