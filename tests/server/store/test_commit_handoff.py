"""A batch's ``COMMIT`` is handed to the writer's thread as the batch closes, before the loop
runs anything else it has ready (a task started for it would wait behind all of that)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from band_server.store.db import Database
from band_server.store.group_commit import InFlight
from band_server.store.sqlite_inline import InlineConnection, OffLoop


class Recorded:
    """Stands in for the writer thread's queue: notes each hand-off, then passes it on."""

    def __init__(self, calls: Any, events: list[str]) -> None:
        self._calls = calls
        self._events = events

    def put(self, item: Any) -> None:
        self._events.append("handed to the writer's thread")
        self._calls.put(item)

    def get(self) -> Any:
        return self._calls.get()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    in_flight = InFlight()
    in_flight.count = 2  # another request under way: every commit goes to the writer's thread
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'handoff.db'}", in_flight=in_flight)
    async with database.write() as session:
        await session.execute(text("CREATE TABLE t (n INTEGER PRIMARY KEY)"))
    yield database
    await database.dispose()


def offloop_of(db: Database) -> OffLoop:
    writer = db._writer
    assert writer is not None and isinstance(writer._driver, InlineConnection)
    offload = writer._driver._offload
    assert offload is not None
    return offload


async def test_the_commit_is_handed_off_before_the_loops_next_step(db: Database) -> None:
    offload = offloop_of(db)
    events: list[str] = []
    offload._calls = Recorded(offload._calls, events)  # type: ignore[assignment]
    loop = asyncio.get_running_loop()
    async with db.write() as session:
        await session.execute(text("INSERT INTO t (n) VALUES (1)"))
        loop.call_soon(events.append, "the loop's next step")
    assert events == ["handed to the writer's thread", "the loop's next step"]


async def test_units_queued_behind_the_commit_form_the_next_batch(db: Database) -> None:
    """The turn is held from the hand-off to the commit's end: units that ask meanwhile share
    the next commit, and every unit's row is there once it returns."""
    batches: list[int] = []
    db.batches.listeners.append(batches.append)

    async def unit(n: int) -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n) VALUES (:n)"), {"n": n})

    first = asyncio.create_task(unit(1))
    await asyncio.sleep(0)  # the first unit runs and hands its commit off
    rest = [asyncio.create_task(unit(n)) for n in range(2, 6)]
    await asyncio.gather(first, *rest)
    assert batches == [1, 4]
    async with db.read() as session:
        count = (await session.execute(text("SELECT count(*) FROM t"))).scalar_one()
    assert count == 5


async def test_a_caller_cancelled_during_its_batchs_commit_stops_nobody_else(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Units of one batch wait for its commit each on a future of its own: cancelling one
    caller meanwhile ends only that caller; the others return once the batch is on disk, with
    the cancelled caller's row in it."""
    handoffs: list[Callable[[], None]] = []
    arrived = asyncio.Event()
    real = InlineConnection.commit_soon

    def gated(driver: InlineConnection, done: Any, before: Any = None) -> None:
        handoffs.append(lambda: real(driver, done, before=before))  # the test lets it go
        arrived.set()

    monkeypatch.setattr(InlineConnection, "commit_soon", gated)

    async def unit(n: int) -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n) VALUES (:n)"), {"n": n})

    async def handed_off(count: int) -> None:
        while len(handoffs) < count:
            arrived.clear()
            await arrived.wait()

    first = asyncio.create_task(unit(1))
    await asyncio.wait_for(handed_off(1), 10)  # a batch of one, its commit held back
    rest = [asyncio.create_task(unit(n)) for n in range(2, 6)]
    await asyncio.sleep(0)  # they queue for the turn, which the first batch's commit holds
    handoffs[0]()
    await asyncio.wait_for(first, 10)
    await asyncio.wait_for(handed_off(2), 10)  # the four form the next batch; its commit held
    rest[1].cancel()
    await asyncio.sleep(0)
    handoffs[1]()
    results = await asyncio.wait_for(asyncio.gather(*rest, return_exceptions=True), 10)
    assert [type(r) for r in results] == [
        type(None),
        asyncio.CancelledError,
        type(None),
        type(None),
    ]
    async with db.read() as session:
        rows = (await session.execute(text("SELECT n FROM t ORDER BY n"))).scalars().all()
    assert rows == [1, 2, 3, 4, 5]


async def test_every_unit_of_a_batch_whose_commit_fails_gets_the_failure(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch's failed ``COMMIT`` reaches each of its units (the same error), none is left
    waiting, and the writer serves the next unit on a fresh connection."""
    writer = db._writer
    assert writer is not None
    failure = RuntimeError("disk gone")

    def broken(driver: InlineConnection, done: Any, before: Any = None) -> None:
        done(None, failure)

    monkeypatch.setattr(InlineConnection, "commit_soon", broken)

    async def unit(n: int) -> None:
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n) VALUES (:n)"), {"n": n})

    results = await asyncio.wait_for(
        asyncio.gather(*(unit(n) for n in range(1, 5)), return_exceptions=True), 10
    )
    assert results == [failure] * 4
    monkeypatch.undo()
    await asyncio.wait_for(unit(9), 10)
    async with db.read() as session:
        rows = (await session.execute(text("SELECT n FROM t ORDER BY n"))).scalars().all()
    assert rows == [9]
