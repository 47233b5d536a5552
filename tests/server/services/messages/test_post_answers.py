"""The posts' answers, built as plain dicts by the services, are byte for byte the wire models'
JSON they were dumped from before (``MessageSentResponse``, ``EventCreatedResponse``,
``ActivityResponse``), over the HTTP surface and through the web app's and ``band send``'s
``posting.post_as_person``."""

from __future__ import annotations

import json

import httpx
import pytest
from agent_testkit import World, make_world, post
from pydantic import BaseModel

from band.protocol import ActivityResponse, EventCreatedResponse, MessageSentResponse
from band.protocol.messages import MentionRef, MessageCreateFields
from band_server.context import Platform
from band_server.services import unit
from band_server.services.identity import accounts
from band_server.services.messages import person_posts as posting
from band_server.services.rooms import membership as rooms
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def same_bytes(answer: httpx.Response, model: type[BaseModel]) -> None:
    data = answer.json()["data"]
    dumped = model.model_validate(data).model_dump(mode="json")
    assert (
        answer.content
        == json.dumps({"data": dumped}, ensure_ascii=False, separators=(",", ":")).encode()
    )


async def test_a_reply_answers_the_models_json(client: httpx.AsyncClient, w: World) -> None:
    r = await post(client, w.echo_key, w.url(), "Hi back!", {"handle": "alice", "id": w.alice})
    assert r.status_code == 201
    same_bytes(r, MessageSentResponse)
    assert list(r.json()["data"]) == ["id", "success", "recipients"]
    assert r.json()["data"]["recipients"] == [{"id": w.alice, "handle": "alice", "name": "Alice"}]


async def test_a_persons_post_answers_the_models_json(client: httpx.AsyncClient, w: World) -> None:
    body = {"message": {"content": "hi @echo", "mentions": [{"id": w.echo}]}}
    r = await client.post(f"/api/v1/me/chats/{w.room_id}/messages", headers=w.alice_key, json=body)
    assert r.status_code == 201
    same_bytes(r, MessageSentResponse)
    assert [x["id"] for x in r.json()["data"]["recipients"]] == [w.echo]


async def test_an_event_answers_the_models_json(client: httpx.AsyncClient, w: World) -> None:
    for headers in (w.echo_key, {**w.echo_key, "Idempotency-Key": "event-answer-1"}):
        body = {"event": {"content": "tool", "message_type": "tool_call", "metadata": None}}
        r = await client.post(w.url("/events"), headers=headers, json=body)
        assert r.status_code == 201
        same_bytes(r, EventCreatedResponse)
        assert list(r.json()["data"]) == ["id", "message_type", "success"]
    again = await client.post(w.url("/events"), headers=headers, json=body)  # the replay
    assert again.content == r.content


async def test_activity_answers_the_models_json(client: httpx.AsyncClient, w: World) -> None:
    for working in (True, False):
        r = await client.post(w.url("/activity"), headers=w.echo_key, json={"working": working})
        assert r.status_code == 200
        same_bytes(r, ActivityResponse)
        assert r.json() == {"data": {"working": working}}


async def test_post_as_person_still_gives_the_wire_model(platform: Platform, w: World) -> None:
    async with unit.write(platform) as uow:
        alice = accounts.user_principal(await accounts.get_user(uow.session, w.alice))
        room = await rooms.room_for(uow.session, alice, w.room_id)
        fields = MessageCreateFields(content="hello", mentions=[MentionRef(id=w.echo)])
        sent = await posting.post_as_person(uow, alice, room, fields)
    assert isinstance(sent, MessageSentResponse)
    assert [r.id for r in sent.recipients] == [w.echo]
