"""Where a batch's ``COMMIT`` runs: a lone unit with nothing else under way on the node commits on
the loop's thread; with another request in flight or units queued, on the writer's thread. Either
way a unit returns only once its data is on disk, and a commit that fails fails its unit."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from agent_testkit import World, make_world, person_posts, room_log
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.context import Platform
from band_server.fanout.bus import Broadcast
from band_server.store.db import Database
from band_server.store.group_commit import GroupCommitter, InFlight
from conftest import Seeded

LOOP_THREAD = threading.main_thread().name
WRITER_THREAD = "sqlite-commit"  # store.sqlite_inline.creator's worker for the writer


@pytest.fixture
def in_flight() -> InFlight:
    return InFlight()


@pytest.fixture
async def db(tmp_path: Path, in_flight: InFlight) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'lone.db'}", in_flight=in_flight)
    async with database.engine.begin() as conn:
        await conn.execute(text("CREATE TABLE parent (id INTEGER PRIMARY KEY)"))
        # Checked at COMMIT, not at the insert: a way to make a batch's commit itself fail.
        await conn.execute(
            text(
                "CREATE TABLE t (n INTEGER PRIMARY KEY, parent INTEGER"
                " REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)"
            )
        )
    yield database
    await database.dispose()


def writer_of(db: Database) -> GroupCommitter:
    assert db._writer is not None
    return db._writer


class Commits:
    """The thread each ``COMMIT`` of the writer's connection ran on, in order."""

    def __init__(self) -> None:
        self.threads: list[str] = []

    def trace(self, statement: str) -> None:
        if statement.strip().upper() == "COMMIT":
            self.threads.append(threading.current_thread().name)


async def watched(db: Database) -> Commits:
    """Open the writer's connection (one unit) and trace its commits from then on."""
    async with db.write() as session:
        await session.execute(text("INSERT INTO parent (id) VALUES (1)"))
    sqlite = writer_of(db)._sqlite
    assert sqlite is not None
    commits = Commits()
    sqlite.set_trace_callback(commits.trace)
    return commits


async def queued_up(writer: GroupCommitter, units: int) -> None:
    """Until ``units`` units wait for the writer's turn (each asks on its task's first step)."""
    for _ in range(1000):
        if writer._waiting >= units:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"{writer._waiting} units queued, not {units}")


def on_disk(db: Database) -> list[int]:
    """What a second connection (another process) reads from the file right now."""
    path = db.engine.url.database
    assert path
    with sqlite3.connect(path) as conn:
        return [r[0] for r in conn.execute("SELECT n FROM t ORDER BY n")]


async def insert(session: AsyncSession, n: int, parent: int = 1) -> None:
    await session.execute(text("INSERT INTO t (n, parent) VALUES (:n, :p)"), {"n": n, "p": parent})


async def write_one(db: Database, n: int, parent: int = 1) -> list[int]:
    async with db.write() as session:
        await insert(session, n, parent)
    return on_disk(db)  # read as soon as the unit returned


async def test_a_lone_unit_with_nothing_else_under_way_commits_on_the_loops_thread(
    db: Database, in_flight: InFlight
) -> None:
    commits = await watched(db)
    in_flight.count = 1  # the unit's own request
    assert 1 in await write_one(db, 1)
    in_flight.count = 0  # work outside any request (a job)
    assert 2 in await write_one(db, 2)
    assert commits.threads == [LOOP_THREAD, LOOP_THREAD]
    assert db.batches.units == 3


async def test_with_another_request_in_flight_the_commit_goes_to_the_writers_thread(
    db: Database, in_flight: InFlight
) -> None:
    commits = await watched(db)
    in_flight.count = 2
    assert 1 in await write_one(db, 1)
    in_flight.count = 1
    assert 2 in await write_one(db, 2)
    assert commits.threads == [WRITER_THREAD, LOOP_THREAD]


async def test_with_units_queued_the_commit_goes_to_the_writers_thread(
    db: Database, in_flight: InFlight
) -> None:
    commits = await watched(db)
    in_flight.count = 1
    inside = asyncio.Event()
    go_on = asyncio.Event()
    seen: dict[int, list[int]] = {}

    async def first() -> None:
        async with db.write() as session:
            await insert(session, 1)
            inside.set()
            await go_on.wait()
        seen[1] = on_disk(db)

    async def second() -> None:
        seen[2] = await write_one(db, 2)

    writer = writer_of(db)
    writer._max_batch = 1  # each a batch of one: only the queue tells the first one to hop
    task = asyncio.create_task(first())
    await inside.wait()
    queued = asyncio.create_task(second())
    await queued_up(writer, 1)
    go_on.set()
    await asyncio.wait_for(asyncio.gather(task, queued), 30)
    # The first batch committed with the second unit queued: the hop; the second came alone.
    assert commits.threads == [WRITER_THREAD, LOOP_THREAD]
    assert 1 in seen[1] and seen[2] == [1, 2]


async def test_units_that_share_a_batch_commit_on_the_writers_thread(
    db: Database, in_flight: InFlight
) -> None:
    commits = await watched(db)
    in_flight.count = 1
    inside = asyncio.Event()
    go_on = asyncio.Event()

    async def first() -> None:
        async with db.write() as session:
            await insert(session, 1)
            inside.set()
            await go_on.wait()

    task = asyncio.create_task(first())
    await inside.wait()
    others = [asyncio.create_task(write_one(db, n)) for n in (2, 3)]
    await queued_up(writer_of(db), 2)
    go_on.set()
    results = await asyncio.wait_for(asyncio.gather(task, *others), 30)
    assert commits.threads == [WRITER_THREAD]  # one batch of three
    assert results[1] == results[2] == [1, 2, 3]


async def test_a_request_read_but_not_begun_when_the_unit_ends_sends_the_commit_off_the_loop(
    db: Database, in_flight: InFlight
) -> None:
    """The server has read a second request (its task is scheduled) but not begun it: the unit
    lets the loop pass once, the request begins, and the commit goes to the writer's thread."""
    commits = await watched(db)
    in_flight.count = 1

    async def request() -> None:
        in_flight.count += 1  # what the app's middleware does as the request begins

    async with db.write() as session:
        await insert(session, 1)
        begun = asyncio.create_task(request())  # scheduled, not run: no await since
    assert on_disk(db) == [1]
    await begun
    assert commits.threads == [WRITER_THREAD]


async def test_a_unit_asked_for_in_that_pass_of_the_loop_joins_the_batch(
    db: Database, in_flight: InFlight
) -> None:
    commits = await watched(db)
    in_flight.count = 1
    async with db.write() as session:
        await insert(session, 1)
        other = asyncio.create_task(write_one(db, 2))  # asks for the turn in that pass
    assert on_disk(db)[:1] == [1]
    assert await asyncio.wait_for(other, 30) == [1, 2]
    assert commits.threads == [WRITER_THREAD]  # one batch of two
    assert db.batches.batches == 2 and db.batches.units == 3


@pytest.mark.parametrize("requests", [1, 2], ids=["on the loop", "on the writer's thread"])
async def test_a_failing_commit_fails_its_unit_and_the_writer_goes_on(
    db: Database, in_flight: InFlight, requests: int
) -> None:
    commits = await watched(db)
    in_flight.count = requests
    with pytest.raises(sqlite3.IntegrityError):
        await write_one(db, 1, parent=404)  # no such parent: the deferred check fails COMMIT
    assert on_disk(db) == []
    assert db.batches.units == 1  # only the first unit, before the failed one
    # The writer's connection was discarded; a new one commits the next unit, the same way.
    assert await asyncio.wait_for(write_one(db, 2), 30) == [2]
    sqlite = writer_of(db)._sqlite
    assert sqlite is not None
    sqlite.set_trace_callback(commits.trace)
    assert await write_one(db, 3) == [2, 3]
    where = LOOP_THREAD if requests == 1 else WRITER_THREAD
    assert commits.threads[0] == where and commits.threads[-1] == where


async def test_without_a_count_of_callers_every_commit_goes_to_the_writers_thread(
    tmp_path: Path,
) -> None:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'plain.db'}")
    try:
        async with database.engine.begin() as conn:
            await conn.execute(text("CREATE TABLE parent (id INTEGER PRIMARY KEY)"))
            await conn.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY, parent INTEGER)"))
        commits = await watched(database)
        assert await write_one(database, 1) == [1]
        assert commits.threads == [WRITER_THREAD]
    finally:
        await database.dispose()


@pytest.fixture
async def w(platform: Platform, seeded: Seeded) -> World:
    return await make_world(platform, seeded)


async def test_the_apps_requests_are_the_count_the_writer_reads(
    client: httpx.AsyncClient, platform: Platform, w: World
) -> None:
    """A delivery mark over HTTP, nothing else under way: its commit runs on the loop's thread,
    with the app's middleware counting the one request; after it, nothing is counted."""
    await person_posts(platform, w, "hello @echo", w.seeded.agent_id)
    writer = writer_of(platform.db)
    sqlite = writer._sqlite
    assert sqlite is not None and writer._in_flight is not None
    counted: list[tuple[str, int]] = []

    def trace(statement: str) -> None:
        if statement.strip().upper() == "COMMIT":
            assert writer._in_flight is not None
            counted.append((threading.current_thread().name, writer._in_flight.count))

    sqlite.set_trace_callback(trace)
    r = await client.get(w.url("/messages/next"), headers=w.echo_key)
    msg_id = r.json()["data"]["id"]
    claimed = await client.post(w.url(f"/messages/{msg_id}/processing"), headers=w.echo_key)
    assert claimed.status_code == 200
    assert counted == [(LOOP_THREAD, 1)]
    assert writer._in_flight.count == 0


async def test_a_services_unit_of_work_starts_no_async_generator(
    platform: Platform, w: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``services.unit.write`` and the store's unit under it are objects with
    ``__aenter__``/``__aexit__``: an async generator per unit cost the loop a first-iteration
    hook and a weak reference. A post is still committed first, announced after."""
    started: list[object] = []
    published: list[tuple[str, bool]] = []
    firstiter, finalizer = sys.get_asyncgen_hooks()
    publish = platform.bus.publish

    def counted(agen: object) -> None:
        started.append(agen)
        if firstiter is not None:
            firstiter(agen)  # type: ignore[arg-type]

    async def noted(b: Broadcast) -> None:
        published.append((b.event, writer_of(platform.db)._batch is None))
        await publish(b)

    monkeypatch.setattr(platform.bus, "publish", noted)
    sys.set_asyncgen_hooks(firstiter=counted, finalizer=finalizer)
    try:
        msg_id = await person_posts(platform, w, "hello @echo", w.seeded.agent_id)
    finally:
        sys.set_asyncgen_hooks(firstiter=firstiter, finalizer=finalizer)
    assert started == []
    assert ("message_created", True) in published  # after its batch committed
    assert msg_id in [m.id for m in (await room_log(platform, w.room_id)).items]
