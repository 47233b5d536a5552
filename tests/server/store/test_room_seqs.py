"""Each room's seq counted in memory by SQLite's writer (``store.room_seqs``) gives exactly what
the row's increment gives: the same seqs to the same units, the same ``last_seq`` on disk,
through batches, units that fail (first of a batch or later), other connections' commits and
a unit that moves ``last_seq`` itself; with rows written through the session (each later unit
of a batch in its own savepoint) or straight (``store.direct``: logged, replayed after a
rollback to the batch's savepoint). The rooms' ``last_message_at`` alike: the newest
``created_at`` of the acknowledged posts, whatever their order."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, Text, text

from band_server.services.messages import posts
from band_server.store import direct, room_seqs
from band_server.store.db import Database
from band_server.store.models import Room

ROOMS = ("r0", "r1", "r2")
INSERT_M = Table("m", MetaData(), Column("room_id", Text), Column("seq", Integer)).insert()


START = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


async def next_seq(session: Any, room_id: str, at: datetime = START) -> int:
    """The seq a post takes (``posts``): the writer's count in memory, else the row's increment."""
    seq = room_seqs.next_seq(session, room_id, at)
    if seq is None:
        seq = await posts._incremented_seq(session, Room(id=room_id), at)
    return seq


async def fresh(path: Path) -> Database:
    db = Database(f"sqlite+aiosqlite:///{path}")
    async with db.engine.begin() as conn:
        await conn.execute(
            text(
                "CREATE TABLE rooms (id TEXT PRIMARY KEY, last_seq INTEGER, updated_at DATETIME,"
                " last_message_at DATETIME)"
            )
        )
        await conn.execute(
            text("CREATE TABLE m (room_id TEXT, seq INTEGER, PRIMARY KEY (room_id, seq))")
        )
        for room in ROOMS:
            await conn.execute(text(f"INSERT INTO rooms VALUES ('{room}', 0, NULL, NULL)"))  # nosec B608 # test constants
    return db


def on_disk(path: Path) -> tuple[list[tuple[str, int]], dict[str, int]]:
    with sqlite3.connect(path) as conn:
        rows = [(r, s) for r, s in conn.execute("SELECT room_id, seq FROM m ORDER BY 1, 2")]
        last = dict(conn.execute("SELECT id, last_seq FROM rooms").fetchall())
    return rows, last


def newest_on_disk(path: Path) -> dict[str, str | None]:
    with sqlite3.connect(path) as conn:
        return dict(conn.execute("SELECT id, last_message_at FROM rooms").fetchall())


class Refused(Exception):
    pass


async def run(
    path: Path, seed: int, straight: bool = False
) -> tuple[list[tuple[int, str, int, datetime]], list[tuple[str, int]], dict[str, int]]:
    """A seeded mix of units on ``path``; what each successful unit took (and each post's
    ``created_at``, out of order at times), and the file. ``straight``: each row is written
    through ``store.direct``, not the session."""
    rnd = random.Random(seed)
    db = await fresh(path)
    taken: list[tuple[int, str, int, datetime]] = []

    async def unit(n: int, room_id: str, ats: list[datetime], fails: bool, moves: int) -> None:
        got = []
        try:
            async with db.write() as session:
                for at in ats:
                    seq = await next_seq(session, room_id, at)
                    if straight:
                        await direct.execute(session, INSERT_M, {"room_id": room_id, "seq": seq})
                    else:
                        await session.execute(
                            text("INSERT INTO m VALUES (:r, :s)"), {"r": room_id, "s": seq}
                        )
                    got.append((seq, at))
                if moves:  # as an archive import: last_seq moved past imported history
                    room_seqs.settle(session, room_id)
                    await session.execute(
                        text("UPDATE rooms SET last_seq = max(last_seq, :top) WHERE id = :r"),
                        {"top": moves, "r": room_id},
                    )
                if fails:
                    raise Refused
        except Refused:
            return
        taken.extend((n, room_id, s, at) for s, at in got)

    n = 0
    for _ in range(30):
        units = []
        for _ in range(rnd.randint(1, 12)):
            n += 1
            units.append(
                unit(
                    n,
                    rnd.choice(ROOMS),
                    [
                        START + timedelta(seconds=rnd.randint(0, 500))
                        for _ in range(rnd.randint(1, 2))
                    ],
                    rnd.random() < 0.25,
                    rnd.choice([0] * 9 + [rnd.randint(1, 80)]),
                )
            )
        await asyncio.gather(*units)
        if rnd.random() < 0.2:  # another process posts in a room
            with sqlite3.connect(path) as other:
                other.execute(
                    "UPDATE rooms SET last_seq = last_seq + 3 WHERE id = ?", (rnd.choice(ROOMS),)
                )
    await db.dispose()
    rows, last = on_disk(path)
    newest: dict[str, datetime] = {}
    for _, room, _, at in taken:
        newest[room] = max(newest.get(room, at), at)
    assert newest_on_disk(path) == {  # the newest acknowledged post's time, as stored
        room: newest[room].strftime("%Y-%m-%d %H:%M:%S.%f") if room in newest else None
        for room in ROOMS
    }
    return sorted(taken), rows, last


@pytest.mark.parametrize("seed", range(8))
async def test_seqs_in_memory_are_the_rows_increment(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_memory = await run(tmp_path / "memory.db", seed)
    with monkeypatch.context() as m:
        m.setattr(room_seqs, "next_seq", lambda session, room_id, at: None)
        in_sql = await run(tmp_path / "sql.db", seed)
    assert in_memory == in_sql
    taken, rows, last = in_memory
    assert rows == sorted((r, s) for _, r, s, _ in taken)  # every acknowledged seq, no other
    assert len(taken) > 50
    for room, top in last.items():  # the next post continues past every seq given
        assert all(s <= top for _, r, s, _ in taken if r == room)


@pytest.mark.parametrize("seed", range(8))
async def test_logged_units_replayed_after_a_failure_keep_the_rows_increment(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows written straight: a later unit that fails rolls the batch back to its savepoint and
    the units before it run again (a unit that moves ``last_seq`` takes savepoints back)."""
    statements: list[str] = []
    opened = direct.adopt

    def traced(session: Any, driver: sqlite3.Connection, *args: Any) -> None:
        driver.set_trace_callback(statements.append)
        opened(session, driver, *args)

    monkeypatch.setattr(direct, "adopt", traced)
    straight = await run(tmp_path / "straight.db", seed, straight=True)
    monkeypatch.undo()
    with monkeypatch.context() as m:
        m.setattr(room_seqs, "next_seq", lambda session, room_id, at: None)
        in_sql = await run(tmp_path / "sql.db", seed)
    assert straight == in_sql
    assert 'ROLLBACK TO SAVEPOINT "band_batch"' in statements


async def test_a_batch_writes_each_room_once_before_its_commit(tmp_path: Path) -> None:
    db = await fresh(tmp_path / "once.db")
    statements: list[str] = []

    async def post(room_id: str) -> None:
        async with db.write() as session:
            seq = await next_seq(session, room_id)
            await session.execute(text("INSERT INTO m VALUES (:r, :s)"), {"r": room_id, "s": seq})

    await post("r2")  # the writer's connection opened, then traced
    writer = db._writer
    assert writer is not None and writer._sqlite is not None
    writer._sqlite.set_trace_callback(statements.append)
    await asyncio.gather(*(post(ROOMS[i % 2]) for i in range(20)))
    await db.dispose()
    updates = [s for s in statements if s.lstrip().upper().startswith("UPDATE ROOMS")]
    assert 2 <= len(updates) < 20  # once a room a batch, not once a post
    assert on_disk(tmp_path / "once.db")[1] == {"r0": 10, "r1": 10, "r2": 1}


async def test_a_failed_commit_forgets_the_batch_seqs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = await fresh(tmp_path / "fail.db")

    async def post() -> int:
        async with db.write() as session:
            seq = await next_seq(session, "r0")
            await session.execute(text("INSERT INTO m VALUES ('r0', :s)"), {"s": seq})
        return seq

    assert await post() == 1
    from band_server.store import group_batch

    def broken(_sqlite: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    with monkeypatch.context() as m:
        m.setattr(group_batch, "index_pending", broken)
        m.setattr(group_batch, "INDEX_EVERY", 0.0)  # every batch makes the (broken) pass
        with pytest.raises(Exception, match="disk I/O error"):
            await post()
    assert await post() == 2  # the lost batch's seq is free again
    await db.dispose()
    assert on_disk(tmp_path / "fail.db") == ([("r0", 1), ("r0", 2)], {"r0": 2, "r1": 0, "r2": 0})
