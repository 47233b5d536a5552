"""What a delivery mark runs on SQLite's writer connection, statement by statement.

Every statement SQLite runs on the writer's connection is seen through its trace callback,
whichever layer sent it (``store.direct`` or the session). A mark runs one read, then only
the writes of its transition: ``/processing`` the delivery's update and the attempt's insert,
``/processed`` and ``/failed`` the attempt's and the delivery's updates; a replay, a refusal
or another agent's message runs the read alone (see "Delivery marks in one statement" in
docs/decisions.md for why the read is not folded into the first write).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from agent_testkit import World, make_room, make_world, mark, person_posts

from band_server.context import Platform
from band_server.store.search_index import PENDING
from conftest import Seeded

_WORK = re.compile(r"^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|SAVEPOINT)\s+(\w+)", re.IGNORECASE)
_UNIT_SAVEPOINT = 'SAVEPOINT "band_unit"'  # each unit's own (store.group_commit)
READ = ["SELECT"]  # the mark's one read: its delivery, message, and the message's deliveries


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


def _writer(platform: Platform) -> sqlite3.Connection:
    writer = platform.db._writer
    assert writer is not None and writer._sqlite is not None  # opened by the world's writes
    return writer._sqlite


@contextmanager
def statements(platform: Platform) -> Iterator[list[str]]:
    """``UPDATE deliveries``, ``INSERT INTO delivery_attempts``, ``SELECT``… as they run
    (``SAVEPOINT sa_savepoint_1``: the unit's session began; the unit's own savepoint,
    ``BEGIN``, the batch's search indexing and ``COMMIT`` left out)."""
    seen: list[str] = []
    conn = _writer(platform)

    def trace(sql: str) -> None:
        m = _WORK.match(sql)
        if m and not sql.startswith(_UNIT_SAVEPOINT) and sql != PENDING:
            verb = m.group(1).upper()
            seen.append(verb if verb == "SELECT" else f"{verb} {m.group(2)}")

    conn.set_trace_callback(trace)
    try:
        yield seen
    finally:
        conn.set_trace_callback(None)


OPEN = ["UPDATE deliveries", "INSERT INTO delivery_attempts"]
CLOSE = ["UPDATE delivery_attempts", "UPDATE deliveries"]
TOUCH = ["UPDATE deliveries"]  # the live attempt's lease clock


async def _mark(
    client: httpx.AsyncClient, platform: Platform, w: World, msg: str, what: str, **kw: object
) -> tuple[int, list[str]]:
    with statements(platform) as seen:
        r = await mark(client, w, msg, what, **kw)
    return r.status_code, seen


async def test_a_mark_is_its_read_and_its_transitions_writes(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    assert await _mark(client, platform, w, msg, "processing") == (200, [*READ, *OPEN])
    assert await _mark(client, platform, w, msg, "processed") == (200, [*READ, *CLOSE])
    assert await _mark(client, platform, w, msg, "processing") == (200, [*READ, *OPEN])
    failed = await _mark(client, platform, w, msg, "failed", json={"error": "x"})
    assert failed == (200, [*READ, *CLOSE])
    assert await _mark(client, platform, w, msg, "processing") == (200, [*READ, *OPEN])


async def test_replays_and_refusals_run_the_read_alone(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    assert await _mark(client, platform, w, msg, "processed") == (422, READ)  # never claimed
    assert await _mark(client, platform, w, msg, "processing") == (200, [*READ, *OPEN])
    assert await _mark(client, platform, w, msg, "processing") == (200, [*READ, *TOUCH])
    assert await _mark(client, platform, w, msg, "processed") == (200, [*READ, *CLOSE])
    assert await _mark(client, platform, w, msg, "processed") == (200, READ)  # a replay
    assert await _mark(client, platform, w, msg, "failed") == (422, READ)  # after processed


async def test_a_failure_of_a_message_never_claimed_opens_and_closes_its_attempt(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    assert await _mark(client, platform, w, msg, "failed") == (200, [*READ, *OPEN, *CLOSE])
    assert await _mark(client, platform, w, msg, "failed") == (200, READ)  # a replay


async def test_another_agents_message_an_unknown_id_and_another_room_run_the_read_alone(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    for_helper = await person_posts(platform, w, "helper only", w.helper_id)
    other_room = await make_room(platform, w.alice, w.echo)
    mine = await person_posts(platform, w, "for echo", w.echo)
    unknown = "00000000-0000-0000-0000-000000000000"
    for what in ("processing", "processed", "failed"):
        for msg, room in ((for_helper, None), (unknown, None), (mine, other_room)):
            with statements(platform) as seen:
                r = await client.post(
                    w.url(f"/messages/{msg}/{what}", room_id=room), headers=w.echo_key
                )
            assert (r.status_code, seen) == (404, READ), (what, msg, room)


async def test_a_sign_of_life_is_one_update_in_the_unit_without_its_session(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    msg = await person_posts(platform, w, "hi", w.echo)
    assert (await mark(client, w, msg, "processing")).status_code == 200
    platform.lease_clock._moved.clear()  # the clock is due again (a quarter lease later)
    with statements(platform) as seen:
        r = await client.post(w.url("/activity"), json={"working": True}, headers=w.echo_key)
    assert r.status_code == 200
    assert seen == TOUCH
