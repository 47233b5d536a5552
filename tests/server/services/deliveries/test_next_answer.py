"""``/next`` answers exactly what the message's model dump would, in every delivery state."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from agent_testkit import World, make_world, mark, person_posts
from sqlalchemy import select, update

from band_server.context import Platform
from band_server.services.deliveries.wire import chat_messages
from band_server.store.models import Delivery, Message
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def served(client: httpx.AsyncClient, w: World) -> dict[str, Any]:
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    assert r.status_code == 200
    data: dict[str, Any] = r.json()["data"]
    return data


async def as_the_model_shows_it(platform: Platform, w: World, msg_id: str) -> dict[str, Any]:
    async with platform.db.read() as session:
        msg = await session.scalar(select(Message).where(Message.id == msg_id))
        assert msg is not None
        view = (await chat_messages(session, [msg], agent_id=w.echo))[0]
    return view.model_dump(mode="json")


async def test_next_answers_what_the_model_dump_gives_in_every_state(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "for echo and helper", w.echo, w.helper_id)
    assert await served(client, w) == await as_the_model_shows_it(platform, w, msg)  # delivered
    assert (await mark(client, w, msg, "processing")).status_code == 200
    now = await served(client, w)
    assert now == await as_the_model_shows_it(platform, w, msg)  # one live attempt
    assert now["metadata"]["delivery_status"][w.echo]["attempts"][0]["status"] == "processing"
    assert list(now["metadata"]["delivery_status"]) == [w.echo]  # this agent's status only
    r = await mark(client, w, msg, "failed", json={"error": "boom"})
    assert r.status_code == 200
    assert await served(client, w) == await as_the_model_shows_it(platform, w, msg)  # failed
    assert (await mark(client, w, msg, "processing")).status_code == 200
    again = await served(client, w)
    assert again == await as_the_model_shows_it(platform, w, msg)  # attempt 2, 1 failed
    assert [
        a["attempt_number"] for a in again["metadata"]["delivery_status"][w.echo]["attempts"]
    ] == [1, 2]
    # an attempt whose lease ran out is served too, as stored
    async with platform.db.write() as session:
        await session.execute(
            update(Delivery)
            .where(Delivery.message_id == msg, Delivery.agent_id == w.echo)
            .values(updated_at=Delivery.delivered_at)
        )
    assert await served(client, w) == await as_the_model_shows_it(platform, w, msg)
