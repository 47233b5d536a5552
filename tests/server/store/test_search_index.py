"""SQLite's search index is written by the group committer in passes (``store.search_index``):
once a second, and before a search when any text waits for it, so a search finds every
acknowledged text message; a unit rolled back leaves nothing behind, a message changed or
deleted before its pass is indexed as it stands, and migration 0018 keeps the index whole both
ways."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine

from band_server.store.db import Database
from band_server.store.migrate import migrate, upgrade
from band_server.store.search_index import INDEXED_UP_TO, PENDING

_ROOM = (
    "INSERT INTO rooms (id, owner_id, owner_type, last_seq, created_at, updated_at)"
    " VALUES ('r1', 'u1', 'User', 0, 0, 0)"
)
_MESSAGE = (
    "INSERT INTO messages (id, room_id, seq, sender_id, sender_type, message_type, content,"
    " metadata, created_at, updated_at) VALUES (:id, 'r1', :seq, 'u1', 'User', :type, :content,"
    " '{}', 0, 0)"
)


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = Database(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    await upgrade(database.engine)
    async with database.write() as session:
        await session.execute(text(_ROOM))
    yield database
    await database.dispose()


def _reader(db: Database) -> sqlite3.Connection:
    path = db.engine.url.database
    assert path
    return sqlite3.connect(path)


async def found(db: Database, word: str) -> list[str]:
    """The ids of the messages a search for ``word`` finds (as the search routes: the index
    made ready first), read by another connection."""
    await db.search_ready()
    with _reader(db) as conn:
        return sorted(
            r[0]
            for r in conn.execute(
                "SELECT m.id FROM message_search JOIN messages m ON m.rowid = message_search.rowid"
                " WHERE message_search MATCH ?",
                (f'"{word}"',),
            )
        )


def indexed(db: Database) -> int:
    with _reader(db) as conn:
        return int(conn.execute("SELECT count(*) FROM message_search_docsize").fetchone()[0])


async def post(session: AsyncSession, n: int, content: str, kind: str = "text") -> None:
    await session.execute(
        text(_MESSAGE), {"id": f"m{n}", "seq": n, "type": kind, "content": content}
    )


async def test_every_acknowledged_text_is_found_when_its_unit_returns(db: Database) -> None:
    async def one(n: int) -> None:
        async with db.write() as session:
            await post(session, n, f"zeppelin number{n}", "text" if n % 3 else "thought")
        assert await found(db, f"number{n}") == ([f"m{n}"] if n % 3 else [])  # acknowledged: found

    await asyncio.gather(*(one(n) for n in range(1, 121)))
    assert db.batches.batches < db.batches.units - 1  # units shared batches
    texts = [f"m{n}" for n in range(1, 121) if n % 3]
    assert await found(db, "zeppelin") == sorted(texts)
    assert indexed(db) == len(texts)  # the thoughts stay out of the index


async def test_a_unit_rolled_back_in_a_batch_leaves_no_entry(db: Database) -> None:
    async def ok(n: int) -> None:
        async with db.write() as session:
            await post(session, n, "kept airship")

    async def doomed() -> None:
        async with db.write() as session:
            await post(session, 99, "doomed airship")
            raise RuntimeError("refused after its insert")

    results = await asyncio.gather(ok(1), doomed(), ok(2), return_exceptions=True)
    assert isinstance(results[1], RuntimeError)
    assert await found(db, "airship") == ["m1", "m2"]
    assert await found(db, "doomed") == []
    async with db.write() as session:  # the next batch indexes nothing twice
        await post(session, 3, "later airship")
    assert await found(db, "airship") == ["m1", "m2", "m3"]
    assert indexed(db) == 3


async def test_changed_or_deleted_before_the_commit_is_indexed_as_it_stands(
    db: Database,
) -> None:
    async with db.write() as session:
        await post(session, 1, "indexed before")
    async with db.write() as session:  # one batch: posted, edited, another posted and deleted
        await post(session, 2, "draft wording")
        await session.execute(text("UPDATE messages SET content = 'final wording' WHERE id='m2'"))
        await post(session, 3, "gone soon")
        await session.execute(text("DELETE FROM messages WHERE id = 'm3'"))
        await session.execute(text("UPDATE messages SET content = 'edited after' WHERE id='m1'"))
    assert await found(db, "final") == ["m2"] and await found(db, "draft") == []
    assert await found(db, "gone") == []
    assert await found(db, "edited") == ["m1"] and await found(db, "before") == []
    async with db.write() as session:  # an indexed message deleted leaves the index
        await session.execute(text("DELETE FROM messages WHERE id = 'm2'"))
    assert await found(db, "wording") == [] and indexed(db) == 1
    with _reader(db) as conn:  # every entry is its message's current text
        conn.execute("INSERT INTO message_search(message_search) VALUES ('integrity-check')")


async def test_migration_0018_both_ways_keeps_the_index_whole(tmp_path: Path) -> None:
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'band.db'}")
    try:
        await upgrade(engine)
        async with engine.begin() as conn:  # no writer here: these wait for an index pass
            await conn.execute(text(_ROOM))
            for n in (1, 2):
                await conn.execute(
                    text(_MESSAGE),
                    {"id": f"m{n}", "seq": n, "type": "text", "content": f"blimp {n}"},
                )
        await migrate(engine, "downgrade", "0017")  # indexes what was pending
        async with engine.begin() as conn:  # 0013's trigger indexes on insert again
            await conn.execute(
                text(_MESSAGE), {"id": "m3", "seq": 3, "type": "text", "content": "blimp 3"}
            )
        await migrate(engine, "upgrade", "head")
        async with engine.connect() as conn:
            hits = await conn.execute(
                text("SELECT rowid FROM message_search WHERE message_search MATCH 'blimp'")
            )
            assert len(hits.all()) == 3
            triggers = await conn.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE"
                     " 'message_search%' ORDER BY name")
            )  # fmt: skip
            assert [r[0] for r in triggers] == ["message_search_delete", "message_search_update"]
    finally:
        await engine.dispose()


async def test_a_failed_index_pass_fails_the_batch_and_commits_nothing(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from band_server.store import group_batch

    def broken(sqlite: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(group_batch, "index_pending", broken)
    monkeypatch.setattr(group_batch, "INDEX_EVERY", 0.0)  # every batch indexes
    with pytest.raises(Exception, match="disk I/O error"):
        async with db.write() as session:
            await post(session, 1, "never acknowledged")
    monkeypatch.undo()
    with _reader(db) as conn:
        assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 0
    async with db.write() as session:  # the writer recovers on a fresh connection
        await post(session, 2, "acknowledged later")
    assert indexed(db) == 1  # the failed pass is owed: the next batch made it
    assert await found(db, "acknowledged") == ["m2"]


async def test_a_pass_a_second_and_one_before_a_search(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixture's batch made the pass of this second: texts posted now wait for the next,
    which a search asks for (and only when a text waits: no unit otherwise)."""
    from band_server.store import group_batch

    for n in (1, 2):
        async with db.write() as session:
            await post(session, n, f"dirigible {n}")
    assert indexed(db) == 0  # committed, not indexed yet
    batches = db.batches.batches
    assert await found(db, "dirigible") == ["m1", "m2"]
    assert db.batches.batches == batches + 1  # the search's own unit, its batch indexed
    await db.search_ready()
    async with db.write() as session:
        await post(session, 3, "a thought", "thought")
    await db.search_ready()  # nothing a search could miss: no unit
    assert db.batches.batches == batches + 2
    monkeypatch.setattr(group_batch, "INDEX_EVERY", 0.0)  # as a second later
    async with db.write() as session:
        await post(session, 4, "dirigible 4")
    assert indexed(db) == 3  # that batch made the pass


async def test_a_pass_every_so_many_units_keeps_each_pass_short(
    db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from band_server.store import group_batch

    monkeypatch.setattr(group_batch, "INDEX_EVERY", 3600.0)
    monkeypatch.setattr(group_batch, "INDEX_UNITS", 4)
    for n in (1, 2, 3):
        async with db.write() as session:
            await post(session, n, f"balloon {n}")
    assert indexed(db) == 0
    async with db.write() as session:  # the fourth unit since the fixture's pass
        await post(session, 4, "balloon 4")
    assert indexed(db) == 4


def test_the_pending_statement_reads_the_bound_the_index_holds() -> None:
    """``PENDING`` is written out as one constant; its bound is ``INDEXED_UP_TO``'s."""
    assert f"WHERE rowid > {INDEXED_UP_TO} AND message_type = 'text'" in PENDING
