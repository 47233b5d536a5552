"""The working indicator carried by the delivery marks (``Band-Working``).

A ``/processing`` that asks for it (``Band-Working: true``) records what ``/activity`` with
``working: true`` records and says so with the same header; that message's ``/processed`` or
``/failed`` (or the expiry of its attempt) ends it, once. Requests without the header (as
band-sdk 6.0.1 sends them) change nothing: their ``/activity`` calls drive the indicator.
"""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from agent_testkit import Recorder, World, make_world, person_posts, recording
from sqlalchemy import update

from band.protocol import utcnow
from band_server.context import Platform
from band_server.store.models import Delivery
from conftest import Seeded

ASK = {"Band-Working": "true"}
# A query string keeps a request out of the fast lane: FastAPI reads the header itself.
ROUTES = pytest.mark.parametrize("via", ["", "?via=fastapi"])


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def mark(
    client: httpx.AsyncClient,
    w: World,
    msg_id: str,
    what: str,
    via: str = "",
    headers: dict[str, str] | None = None,
    **kw: object,
) -> httpx.Response:
    url = w.url(f"/messages/{msg_id}/{what}") + via
    return await client.post(url, headers={**w.echo_key, **(headers or {})}, **kw)  # type: ignore[arg-type]


async def activity(client: httpx.AsyncClient, w: World, working: bool) -> None:
    r = await client.post(w.url("/activity"), json={"working": working}, headers=w.echo_key)
    assert r.status_code == 200


def flips(rec: Recorder) -> list[bool]:
    return [b.payload["working"] for b in rec.events("agent_activity")]


@ROUTES
async def test_a_claim_that_asks_records_the_indicator_and_says_so(
    client: httpx.AsyncClient, platform: Platform, w: World, via: str
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    with recording(platform) as rec:
        r = await mark(client, w, msg, "processing", via, ASK)
    assert r.status_code == 200, r.text
    assert r.headers.get("band-working") == "true"
    assert r.json()["data"]["status"] == "processing"
    assert platform.activity.is_working(w.room_id, w.echo)
    [pushed] = rec.events("agent_activity")
    assert pushed.topic == f"chat_room:{w.room_id}" and pushed.agents == frozenset()
    assert pushed.payload == {"agent_id": w.echo, "chat_room_id": w.room_id, "working": True}


@ROUTES
async def test_a_claim_without_the_header_changes_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World, via: str
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    with recording(platform) as rec:
        plain = await mark(client, w, msg, "processing", via)
        other = await mark(client, w, msg, "processing", via, {"Band-Working": "false"})
    for r in (plain, other):
        assert r.status_code == 200 and "band-working" not in r.headers
    assert not platform.activity.is_working(w.room_id, w.echo)
    assert flips(rec) == []


async def test_a_refused_claim_records_nothing(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    with recording(platform) as rec:
        r = await mark(client, w, "no-such-message", "processing", headers=ASK)
    assert r.status_code == 404 and "band-working" not in r.headers
    assert not platform.activity.is_working(w.room_id, w.echo)
    assert flips(rec) == []


@pytest.mark.parametrize("end", ["processed", "failed"])
async def test_the_messages_end_stops_the_indicator_once(
    client: httpx.AsyncClient, platform: Platform, w: World, end: str
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    body = {"json": {"error": "cut"}} if end == "failed" else {}
    with recording(platform) as rec:
        assert (await mark(client, w, msg, "processing", headers=ASK)).status_code == 200
        await activity(client, w, True)  # the keep-alive of a long turn
        assert (await mark(client, w, msg, end, **body)).status_code == 200
        assert (await mark(client, w, msg, end, **body)).status_code == 200  # a replay
    assert flips(rec) == [True, False]
    assert not platform.activity.is_working(w.room_id, w.echo)


async def test_band_sdks_order_gives_one_stop(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """band-sdk claims without the header, reports ``working`` itself, ends it, then acks."""
    msg = await person_posts(platform, w, "hi", w.echo)
    with recording(platform) as rec:
        assert (await mark(client, w, msg, "processing")).status_code == 200
        await activity(client, w, True)
        await activity(client, w, False)
        assert (await mark(client, w, msg, "processed")).status_code == 200
    assert flips(rec) == [True, False]


async def test_an_indicator_reported_by_activity_outlives_a_mark(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """Only the claim that started the indicator ties it to its message: one reported by
    ``/activity`` (band-sdk) is ended by ``/activity``."""
    msg = await person_posts(platform, w, "hi", w.echo)
    with recording(platform) as rec:
        assert (await mark(client, w, msg, "processing")).status_code == 200
        await activity(client, w, True)
        assert (await mark(client, w, msg, "processed")).status_code == 200
    assert flips(rec) == [True]
    assert platform.activity.is_working(w.room_id, w.echo)


async def test_another_messages_end_leaves_the_indicator(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await person_posts(platform, w, "one", w.echo)
    second = await person_posts(platform, w, "two", w.echo)
    assert (await mark(client, w, first, "processing")).status_code == 200
    with recording(platform) as rec:
        assert (await mark(client, w, second, "processing", headers=ASK)).status_code == 200
        assert (await mark(client, w, first, "processed")).status_code == 200
        assert platform.activity.is_working(w.room_id, w.echo)
        assert (await mark(client, w, second, "processed")).status_code == 200
    assert flips(rec) == [True, False]


async def test_an_expired_attempt_ends_its_indicator(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "dead turn", w.echo)
    assert (await mark(client, w, msg, "processing", headers=ASK)).status_code == 200
    past = utcnow() - timedelta(seconds=platform.settings.delivery_lease + 5)
    async with platform.db.write() as session:
        await session.execute(
            update(Delivery).where(Delivery.message_id == msg).values(updated_at=past)
        )
    with recording(platform) as rec:
        assert await platform.leases.sweep(platform) == {w.echo}
        assert await platform.leases.sweep(platform) == set()
    assert flips(rec) == [False]
    assert not platform.activity.is_working(w.room_id, w.echo)
