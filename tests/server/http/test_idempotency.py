"""``Idempotency-Key`` on POST: replay the first answer, refuse a reused key, expire after 24 h."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from agent_testkit import World, counts, make_world, recording
from sqlalchemy import func, select, update

from band.protocol import utcnow
from band_server.context import Platform
from band_server.http.idempotency import body_hash
from band_server.services.idempotency import records, row_keys
from band_server.store.models import IdempotencyRecord, Message
from conftest import Seeded


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def body(text: str) -> dict[str, Any]:
    return {"message": {"content": text, "mentions": [{"handle": "alice"}]}}


async def send(
    client: httpx.AsyncClient, w: World, payload: Any, idem: str | None, api_key: str | None = None
) -> httpx.Response:
    headers = {"X-API-Key": api_key or w.seeded.agent_key}
    if idem is not None:
        headers["Idempotency-Key"] = idem
    return await client.post(w.url("/messages"), json=payload, headers=headers)


ACTIVE = {"working": True}


async def age_keys(platform: Platform, by: timedelta) -> None:
    """Make every kept key older: records, and the keys on speech posts' messages."""
    async with platform.db.write() as session:
        await session.execute(update(IdempotencyRecord).values(created_at=utcnow() - by))
        await session.execute(
            update(Message).where(Message.idem_key.is_not(None)).values(created_at=utcnow() - by)
        )


async def keyed_messages(platform: Platform) -> int:
    async with platform.db.read() as session:
        found = await session.scalar(
            select(func.count()).select_from(Message).where(Message.idem_key.is_not(None))
        )
    return int(found or 0)


async def record_claim(
    platform: Platform, w: World, idem: str, payload: Any, *, at: datetime | None = None
) -> None:
    """A claim of ``idem`` on Echo's message route, as a build before migration 0010 kept it."""
    path = w.url("/messages")
    raw = json.dumps(payload).encode()
    fp = records.fingerprint(w.seeded.agent_id, idem, "POST", path, body_hash({}, raw))
    async with platform.db.write() as session:
        session.add(
            IdempotencyRecord(
                principal_id=fp.principal_id,
                key=fp.key,
                method="POST",
                path=path,
                body_hash=fp.body_hash,
                status_code=0,
                sealed_body="",
                created_at=at or utcnow(),
            )
        )


async def test_same_key_and_body_replays_the_first_answer_without_a_second_message(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await send(client, w, body("only once"), "k-1")
    with recording(platform) as rec:
        again = await send(client, w, body("only once"), "k-1")
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again.json()["data"]["id"] == first.json()["data"]["id"]
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers
    assert (await counts(platform, w.room_id))[0] == 1
    assert rec.items == []  # the replay announces nothing


async def test_json_key_order_does_not_make_a_different_body(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await send(
        client, w, {"message": {"content": "x", "mentions": [{"handle": "alice"}]}}, "k-order"
    )
    again = await send(
        client, w, {"message": {"mentions": [{"handle": "alice"}], "content": "x"}}, "k-order"
    )
    assert again.json() == first.json()
    assert (await counts(platform, w.room_id))[0] == 1


async def test_same_key_with_another_body_is_refused(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    assert (await send(client, w, body("first"), "k-2")).status_code == 201
    r = await send(client, w, body("second"), "k-2")
    assert r.status_code == 422
    assert r.json()["error"]["code"] == "idempotency_key_reused"
    assert r.json()["error"]["request_id"]
    assert (await counts(platform, w.room_id))[0] == 1


async def test_same_key_on_another_path_is_refused(client: httpx.AsyncClient, w: World) -> None:
    assert (await send(client, w, body("first"), "k-path")).status_code == 201
    r = await client.post(
        w.url("/events"),
        json=body("first"),
        headers={"X-API-Key": w.seeded.agent_key, "Idempotency-Key": "k-path"},
    )
    assert r.json()["error"]["code"] == "idempotency_key_reused"


async def test_without_the_header_every_post_does_the_work(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    one = await send(client, w, body("twice"), None)
    two = await send(client, w, body("twice"), None)
    assert one.status_code == two.status_code == 201
    assert one.json()["data"]["id"] != two.json()["data"]["id"]
    assert (await counts(platform, w.room_id))[0] == 2


async def test_keys_belong_to_one_caller(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    mine = await send(client, w, body("same"), "shared")
    theirs = await send(client, w, body("same"), "shared", api_key=w.helper_key)
    assert mine.status_code == theirs.status_code == 201
    assert mine.json()["data"]["id"] != theirs.json()["data"]["id"]
    assert (await counts(platform, w.room_id))[0] == 2


async def test_a_refused_request_is_not_kept_so_the_key_can_be_retried(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    bad = await send(client, w, body("   "), "k-3")
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "validation_error"
    good = await send(client, w, body("fixed"), "k-3")
    assert good.status_code == 201
    assert (await counts(platform, w.room_id))[0] == 1


async def test_keys_expire_after_a_day(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    first = await send(client, w, body("old"), "k-4")
    await age_keys(platform, timedelta(hours=25))
    again = await send(client, w, body("old"), "k-4")
    assert again.status_code == 201
    assert again.json()["data"]["id"] != first.json()["data"]["id"]
    assert (await counts(platform, w.room_id))[0] == 2


async def test_a_key_still_in_flight_answers_409(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    # A speech post's key is on its message once committed: a claim still in flight is a
    # record, here one written by a build before the keys moved to the rows (migration 0010).
    await record_claim(platform, w, "k-5", body("slow"))
    r = await send(client, w, body("slow"), "k-5")
    assert r.status_code == 409
    assert r.json()["error"]["code"] == "idempotency_key_in_use"
    assert (await counts(platform, w.room_id))[0] == 0
    # A claim on a route that still keeps records (its work is not one unit), the same way.
    headers = {"X-API-Key": w.seeded.agent_key, "Idempotency-Key": "k-5b"}
    assert (await client.post(w.url("/activity"), json=ACTIVE, headers=headers)).status_code == 200
    async with platform.db.write() as session:
        await session.execute(update(IdempotencyRecord).values(status_code=0))
    r = await client.post(w.url("/activity"), json=ACTIVE, headers=headers)
    assert r.status_code == 409 and r.json()["error"]["code"] == "idempotency_key_in_use"


async def test_bad_keys_and_bad_api_keys(client: httpx.AsyncClient, w: World) -> None:
    long = await send(client, w, body("x"), "k" * 201)
    assert long.status_code == 422 and long.json()["error"]["code"] == "validation_error"
    assert "/Idempotency-Key" in long.json()["error"]["details"]
    nobody = await send(client, w, body("x"), "k-6", api_key="band_nope")
    assert nobody.status_code == 401


async def test_racing_requests_with_one_key_do_the_work_once(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    # Both pass the first look (no record yet); the claim written with the work decides.
    answers = await asyncio.gather(*(send(client, w, body("racing"), "k-race") for _ in range(8)))
    statuses = sorted(r.status_code for r in answers)
    assert statuses.count(201) >= 1
    assert set(statuses) <= {201, 409}
    created = {r.json()["data"]["id"] for r in answers if r.status_code == 201}
    assert len(created) == 1  # later ones replay the first answer
    assert (await counts(platform, w.room_id))[0] == 1
    for r in answers:
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "idempotency_key_in_use"
    replay = await send(client, w, body("racing"), "k-race")
    assert replay.status_code == 201 and replay.json()["data"]["id"] in created


async def test_a_refused_post_leaves_no_claim_behind(client: httpx.AsyncClient, w: World) -> None:
    refused = await send(client, w, {"message": {"content": "   ", "mentions": []}}, "k-blank")
    assert refused.status_code == 422
    # The key is free again: the same key with a good body does the work.
    ok = await send(client, w, body("now fine"), "k-blank-2")
    assert ok.status_code == 201
    retry = await send(client, w, {"message": {"content": "   ", "mentions": []}}, "k-blank")
    assert retry.status_code == 422 and "idempotent-replayed" not in retry.headers


@pytest.mark.parametrize("surface", ["agent", "person"])
async def test_a_message_post_interrupted_after_its_commit_replays_on_retry(
    client: httpx.AsyncClient,
    platform: Platform,
    w: World,
    monkeypatch: pytest.MonkeyPatch,
    surface: str,
) -> None:
    """A node killed between the message's commit and any later write (issue 12's node kill):
    the retry on another node must replay the answer, not wait out a claim (409) and then post
    a second message. The answer rides in the message's own transaction on both surfaces."""
    from band_server.http.idempotency import IdempotencyMiddleware

    async def crashed(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a second write after the work: lost if the node dies here")

    monkeypatch.setattr(IdempotencyMiddleware, "_settle", staticmethod(crashed))
    if surface == "agent":
        url, key = w.url("/messages"), w.seeded.agent_key
    else:
        url, key = f"/api/v1/me/chats/{w.room_id}/messages", w.seeded.user_key
    headers = {"X-API-Key": key, "Idempotency-Key": f"crash-{surface}"}
    first = await client.post(url, json=body("once across a crash"), headers=headers)
    assert first.status_code == 201, first.text
    again = await client.post(url, json=body("once across a crash"), headers=headers)
    assert again.status_code == 201, again.text
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["data"]["id"] == first.json()["data"]["id"]
    assert (await counts(platform, w.room_id))[0] == 1


async def test_a_turn_post_reads_nothing_first_and_its_key_rides_on_its_message(
    client: httpx.AsyncClient, platform: Platform, w: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's message and event posts (each keyed by our SDK) claim their key on the
    message they insert: no read first, no record row; a used key is read only once the
    insert found it. Other keyed POSTs still read first and keep a record."""
    looked: list[str] = []
    lookup, on_rows = records.lookup, row_keys.lookup

    async def counted(db: Any, fp: records.Fingerprint) -> records.Outcome:
        looked.append(fp.path)
        return await lookup(db, fp)

    async def counted_on_rows(db: Any, fp: records.Fingerprint) -> records.Outcome:
        looked.append("row " + fp.path)
        return await on_rows(db, fp)

    monkeypatch.setattr(records, "lookup", counted)
    monkeypatch.setattr(row_keys, "lookup", counted_on_rows)
    event = {"event": {"content": "thinking", "message_type": "thought", "metadata": None}}
    headers = {"X-API-Key": w.seeded.agent_key, "Idempotency-Key": "turn-event"}
    first = await client.post(w.url("/events"), json=event, headers=headers)
    assert (await send(client, w, body("a reply"), "turn-reply")).status_code == 201
    assert first.status_code == 201 and looked == []
    async with platform.db.read() as session:
        assert (await session.execute(select(IdempotencyRecord))).scalars().all() == []
        keys = (await session.execute(select(Message.idem_key, Message.idem_body))).all()
    assert await keyed_messages(platform) == 2
    assert all(len(k) == len(b) == 64 and "turn-" not in k for k, b in keys)  # hashes only
    with recording(platform) as rec:
        again = await client.post(w.url("/events"), json=event, headers=headers)
    assert again.status_code == 201 and again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content and rec.items == []
    assert looked == ["row " + w.url("/events")]  # the insert found the key: then it was read
    activity = await client.post(
        w.url("/activity"),
        json=ACTIVE,
        headers={"X-API-Key": w.seeded.agent_key, "Idempotency-Key": "not-a-turn-post"},
    )
    assert activity.status_code == 200 and looked[-1] == w.url("/activity")
    async with platform.db.read() as session:
        kept = (await session.execute(select(IdempotencyRecord.path))).scalars().all()
    assert kept == [w.url("/activity")]


async def test_replays_rebuilt_from_the_row_are_the_answers_sent(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """Byte for byte, on both surfaces, with recipients, a name-less one and a reference."""
    reply = {"message": {"content": "to both", "mentions": [{"handle": "alice"}]}}
    reply["message"]["mentions"].append({"handle": w.helper_handle})
    person = {"message": {"content": "hey @echo, see @bob", "mentions": []}}
    cases = [
        (w.url("/messages"), w.seeded.agent_key, reply),
        (f"/api/v1/me/chats/{w.room_id}/messages", w.seeded.user_key, person),
        (w.url("/events"), w.seeded.agent_key, {"event": {"content": "x", "message_type": "task"}}),
    ]
    for n, (url, key, payload) in enumerate(cases):
        headers = {"X-API-Key": key, "Idempotency-Key": f"rebuilt-{n}"}
        first = await client.post(url, json=payload, headers=headers)
        again = await client.post(url, json=payload, headers=headers)
        assert first.status_code == again.status_code == 201, first.text
        assert again.content == first.content and again.headers["idempotent-replayed"] == "true"
    assert await keyed_messages(platform) == 3


async def test_a_record_kept_before_the_keys_moved_to_the_rows_still_holds_its_key(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """A speech post's record from a build before migration 0010 replays for its 24 hours;
    an expired or abandoned one gives its key to the next post."""
    path = w.url("/messages")
    raw = json.dumps(body("before")).encode()
    fp = records.fingerprint(w.seeded.agent_id, "k-legacy", "POST", path, body_hash({}, raw))
    answer = '{"data":{"id":"m-legacy","success":true,"recipients":[]}}'
    async with platform.db.write() as session:
        await records.record(session, fp, records.Answer(201, answer, secret_free=True), fresh=True)
    await record_claim(platform, w, "k-abandoned", body("died"), at=utcnow() - timedelta(hours=1))
    headers = {"X-API-Key": w.seeded.agent_key, "Idempotency-Key": "k-legacy"}
    r = await client.post(
        path, content=raw, headers={**headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 201 and r.headers["idempotent-replayed"] == "true"
    assert r.text == answer
    other = await send(client, w, body("another"), "k-legacy")
    assert other.status_code == 422 and other.json()["error"]["code"] == "idempotency_key_reused"
    taken = await send(client, w, body("died"), "k-abandoned")
    assert taken.status_code == 201 and "idempotent-replayed" not in taken.headers
    again = await send(client, w, body("died"), "k-abandoned")
    assert again.json() == taken.json() and again.headers["idempotent-replayed"] == "true"
    assert (await counts(platform, w.room_id))[0] == 1
    async with platform.db.read() as session:
        left = (await session.execute(select(IdempotencyRecord.status_code))).scalars().all()
    assert left == [201]  # the abandoned claim went; its key is on the new message


async def test_a_callers_expired_keys_are_swept_at_most_once_per_interval(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    assert (await send(client, w, body("first"), "k-sweep-1")).status_code == 201  # swept once
    await age_keys(platform, timedelta(hours=25))
    assert (await send(client, w, body("second"), "k-sweep-2")).status_code == 201
    assert await keyed_messages(platform) == 2  # within the interval: the expired key stays
    row_keys._last_sweep[0] -= records.SWEEP_EVERY
    assert (await send(client, w, body("third"), "k-sweep-3")).status_code == 201
    assert await keyed_messages(platform) == 2  # the expired one went; the two of the day stay
    assert (await counts(platform, w.room_id))[0] == 3  # its message stays
    # Records (every other keyed route) are swept per caller as before.
    headers = {"X-API-Key": w.seeded.agent_key}
    for n in range(2):
        ok = await client.post(
            w.url("/activity"), json=ACTIVE, headers={**headers, "Idempotency-Key": f"a-{n}"}
        )
        assert ok.status_code == 200
        await age_keys(platform, timedelta(hours=25))
    records._last_sweep[w.seeded.agent_id] -= records.SWEEP_EVERY
    ok = await client.post(
        w.url("/activity"), json=ACTIVE, headers={**headers, "Idempotency-Key": "a-2"}
    )
    assert ok.status_code == 200
    async with platform.db.read() as session:
        assert len((await session.execute(select(IdempotencyRecord))).scalars().all()) == 1
