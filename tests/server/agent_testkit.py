"""Helpers for the agent REST tests: rooms through the services, headers, a broadcast recorder."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import func, select, update

from band.protocol import utcnow
from band.protocol.messages import MentionRef, MessageCreateFields
from band_server.context import Platform
from band_server.fanout.bus import Broadcast
from band_server.services import unit
from band_server.services.identity import accounts
from band_server.services.messages import posts as messages
from band_server.services.messages.paging import MessagePage
from band_server.services.rooms import membership as rooms
from band_server.store.models import Delivery, DeliveryAttempt, Message
from conftest import Seeded, make_agent, make_user


def key(api_key: str) -> dict[str, str]:
    return {"X-API-Key": api_key}


async def make_room(
    platform: Platform, owner_id: str, *member_ids: str, title: str = "Room"
) -> str:
    """A room owned by a person, with the given people or agents added as members."""
    async with platform.db.write() as session:
        owner = accounts.user_principal(await accounts.get_user(session, owner_id))
        room, _ = await rooms.create_room(session, owner, title=title, task_id=None)
        for pid in member_ids:
            await rooms.add_participant(session, owner, room, pid)
        return room.id


@dataclass
class World:
    """Alice (a person), her agents Echo and Helper, Bob (a person), and a room with all four."""

    seeded: Seeded
    room_id: str
    helper_id: str
    helper_key: str
    helper_handle: str
    bob_id: str
    bob_key: str

    @property
    def alice(self) -> str:
        return self.seeded.user_id

    @property
    def echo(self) -> str:
        return self.seeded.agent_id

    @property
    def echo_key(self) -> dict[str, str]:
        return key(self.seeded.agent_key)

    @property
    def alice_key(self) -> dict[str, str]:
        return key(self.seeded.user_key)

    def url(self, suffix: str = "", room_id: str | None = None) -> str:
        return f"/api/v1/agent/chats/{room_id or self.room_id}{suffix}"


async def make_world(platform: Platform, seeded: Seeded) -> World:
    helper_id, helper_key, helper_handle = await make_agent(platform, seeded.user_id, "Helper")
    bob_id, bob_key = await make_user(platform, "bob", "Bob")
    room_id = await make_room(platform, seeded.user_id, seeded.agent_id, helper_id, bob_id)
    return World(seeded, room_id, helper_id, helper_key, helper_handle, bob_id, bob_key)


async def mark(
    client: httpx.AsyncClient, w: World, msg_id: str, what: str, **kw: object
) -> httpx.Response:
    """Echo's delivery mark ``what`` (processing, processed, failed) of a message in w's room."""
    return await client.post(w.url(f"/messages/{msg_id}/{what}"), headers=w.echo_key, **kw)  # type: ignore[arg-type]


@dataclass
class Recorder:
    """Every broadcast published while recording (they still reach the hub)."""

    items: list[Broadcast] = field(default_factory=list)

    def events(self, event: str) -> list[Broadcast]:
        return [b for b in self.items if b.event == event]


@contextmanager
def recording(platform: Platform) -> Iterator[Recorder]:
    recorder = Recorder()
    original = platform.bus.publish

    async def publish(b: Broadcast) -> None:
        recorder.items.append(b)
        await original(b)

    platform.bus.publish = publish  # type: ignore[method-assign,assignment]
    try:
        yield recorder
    finally:
        platform.bus.publish = original  # type: ignore[method-assign]


async def counts(platform: Platform, room_id: str) -> tuple[int, int, int]:
    """(messages, deliveries, attempts) stored for a room: refused requests change none."""
    async with platform.db.read() as session:
        msgs = await session.scalar(
            select(func.count()).select_from(Message).where(Message.room_id == room_id)
        )
        dels = await session.scalar(
            select(func.count()).select_from(Delivery).where(Delivery.room_id == room_id)
        )
        atts = await session.scalar(
            select(func.count())
            .select_from(DeliveryAttempt)
            .join(Delivery, Delivery.id == DeliveryAttempt.delivery_id)
            .where(Delivery.room_id == room_id)
        )
        return int(msgs or 0), int(dels or 0), int(atts or 0)


async def post(
    client: httpx.AsyncClient,
    headers: dict[str, str],
    room_url: str,
    content: str,
    *mentions: dict[str, Any],
) -> httpx.Response:
    return await client.post(
        f"{room_url}/messages",
        headers=headers,
        json={"message": {"content": content, "mentions": list(mentions)}},
    )


async def person_posts(platform: Platform, w: World, text: str, *mention_ids: str) -> str:
    """Alice (a person) posts through the service layer, as the human router does."""
    async with unit.write(platform) as uow:
        alice = accounts.user_principal(await accounts.get_user(uow.session, w.alice))
        room = await rooms.room_for(uow.session, alice, w.room_id)
        fields = MessageCreateFields(content=text, mentions=[MentionRef(id=i) for i in mention_ids])
        sent = await messages.post_message(uow, alice, room, fields)
    return str(sent["id"])


async def room_log(platform: Platform, room_id: str, **kw: Any) -> MessagePage:
    """Every message and event of a room, as the human surface lists them."""
    async with platform.db.read() as session:
        room = await rooms.get_room(session, room_id)
        return await messages.list_messages(session, room, messages.Window(**kw))


# -- /next and delivery leases (test_delivery_leases, test_passing_over) --------------------


async def next_id(client: httpx.AsyncClient, w: World) -> str | None:
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    if r.status_code == 204:
        return None
    assert r.status_code == 200, r.text
    return str(r.json()["data"]["id"])


async def age(platform: Platform, message_id: str, seconds: float) -> None:
    """Move the delivery's lease clock ``seconds`` into the past (no sign of life since)."""
    async with platform.db.write() as session:
        await session.execute(
            update(Delivery)
            .where(Delivery.message_id == message_id)
            .values(updated_at=utcnow() - timedelta(seconds=seconds))
        )


def past_the_lease(platform: Platform) -> float:
    return platform.settings.delivery_lease + 5


async def status_of(client: httpx.AsyncClient, w: World, message_id: str) -> dict[str, object]:
    r = await client.get(f"/api/v1/me/chats/{w.room_id}/messages", headers=w.alice_key)
    assert r.status_code == 200
    [found] = [m for m in r.json()["data"] if m["id"] == message_id]
    entry: dict[str, object] = found["metadata"]["delivery_status"][w.echo]
    return entry
