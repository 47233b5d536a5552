"""The room list's statements before and after issue 26's fix, planned and timed on SQLite and
on a real PostgreSQL (started here, on loopback), on rooms pre-filled as after a long soak.

For each read of a person's room list (last activity, newest text, newest message, unread
counts): the statement the scan used to run
(``tests/scale/room_list_definitions.py``) and the one ``services.rooms.rows`` runs now,
each with its plan (SQLite's ``EXPLAIN QUERY PLAN``, PostgreSQL's ``EXPLAIN ANALYZE``) and the
median of 3 timings.

    .venv/bin/python -m bench.room_list_plans [--rooms 20] [--turns 5000] [--only sqlite]

Prints the plans and a table; writes bench/results/room_list_plans.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, create_async_engine

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the definitions and the PostgreSQL server of tests

from bench.prefill import prefill  # noqa: E402
from scale.real_services import PostgresServer, pg_binary  # noqa: E402
from scale.room_list_definitions import (  # noqa: E402
    old_last_activity,
    old_newest,
    old_unread,
)

RESULTS = ROOT / "bench" / "results"
# 0017 made ix_messages_room_created too; 0020 replaced it by rooms.last_message_at.
NEW_INDEXES = ("ix_messages_room_texts",)
Read = Callable[[AsyncSession], Awaitable[Any]]


async def _world(engine: AsyncEngine, rooms: int, per_room: int) -> tuple[str, list[str]]:
    """A person and rooms of ``per_room`` agents each; the person's id and the room ids."""
    from band_server.services.identity import accounts
    from band_server.services.rooms import membership

    async with AsyncSession(engine, expire_on_commit=False) as session, session.begin():
        user, _ = await accounts.create_user(session, name="Alice", handle="alice")
        owner = accounts.user_principal(user)
        ids = []
        for r in range(rooms):
            room, _ = await membership.create_room(session, owner, title=f"r{r}", task_id=None)
            for a in range(per_room):
                agent, _ = await accounts.create_agent(
                    session, user, name=f"Agent {r} {a}", description="An agent of the plans"
                )
                await membership.add_participant(session, owner, room, agent.id)
            ids.append(room.id)
        return user.id, ids


def _reads(person: str, ids: list[str]) -> dict[str, tuple[Read, Read]]:
    from band_server.services.rooms import rows

    return {
        "last activity": (
            lambda s: old_last_activity(s, ids),
            lambda s: rows.last_activity(s, ids),
        ),
        "newest text": (
            lambda s: old_newest(s, ids, "text"),
            lambda s: rows.newest_messages(s, ids, "text"),
        ),
        "newest message": (
            lambda s: old_newest(s, ids, None),
            lambda s: rows.newest_messages(s, ids),
        ),
        "unread counts": (
            lambda s: old_unread(s, person, ids),
            lambda s: rows.unread_counts(s, person, ids),
        ),
    }


async def _explain(engine: AsyncEngine, read: Read) -> tuple[float, list[str]]:
    """The read timed (median of 3) and the plan of its last statement."""
    seen: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, params: Any, *_: Any) -> None:
        seen.append((statement, params))

    times = []
    for _ in range(3):
        async with AsyncSession(engine) as session:
            started = time.perf_counter()
            await read(session)
            times.append((time.perf_counter() - started) * 1000)
    event.listen(engine.sync_engine, "before_cursor_execute", capture)
    try:
        async with AsyncSession(engine) as session:
            await read(session)
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", capture)
    statement, params = [s for s in seen if s[0].lstrip().upper().startswith("SELECT")][-1]
    prefix = "EXPLAIN QUERY PLAN " if engine.dialect.name == "sqlite" else "EXPLAIN ANALYZE "
    async with engine.connect() as conn:
        found = await conn.exec_driver_sql(prefix + statement, params)
        plan = [str(row[-1]) for row in found]
    return statistics.median(times), plan


async def _indexes(engine: AsyncEngine, *, made: bool) -> None:
    """Migration 0016's indexes dropped (before) or made (after), then the statistics
    refreshed: "before" is the schema the scans ran on."""
    from band_server.store.models import Base, Message

    ours = [i for i in Base.metadata.tables[Message.__tablename__].indexes if i.name in NEW_INDEXES]
    assert len(ours) == len(NEW_INDEXES)
    async with engine.begin() as conn:
        for index in ours:
            await conn.run_sync(index.create if made else index.drop, checkfirst=True)
        await conn.execute(text("ANALYZE"))


async def measure(url: str, rooms: int, turns: int) -> dict[str, Any]:
    from band_server.store.migrate import upgrade

    engine = create_async_engine(url)
    try:
        await upgrade(engine)
        person, ids = await _world(engine, rooms, 5)
        started = time.monotonic()
        written = await prefill(engine, turns)
        print(f"{engine.dialect.name}: {written} messages in {time.monotonic() - started:.0f} s")
        out: dict[str, Any] = {"messages": written, "reads": {}}
        reads = _reads(person, ids)
        for label in ("before", "after"):
            await _indexes(engine, made=label == "after")
            for name, pair in reads.items():
                ms, plan = await _explain(engine, pair[label == "after"])
                out["reads"].setdefault(name, {})[label] = {"ms": round(ms, 2), "plan": plan}
        return out
    finally:
        await engine.dispose()


def report(results: dict[str, dict[str, Any]]) -> str:
    lines = []
    for dialect, found in results.items():
        for name, entry in found["reads"].items():
            for label in ("before", "after"):
                lines.append(f"-- {dialect}, {name}, {label}: {entry[label]['ms']} ms")
                lines.extend("   " + row for row in entry[label]["plan"])
    lines += ["", "| read | " + " | ".join(f"{d} before ms | {d} after ms" for d in results) + " |"]
    lines.append("| --- |" + " --- | --- |" * len(results))
    first = next(iter(results.values()))
    for name in first["reads"]:
        cells = [
            f"{found['reads'][name]['before']['ms']} | {found['reads'][name]['after']['ms']}"
            for found in results.values()
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


async def run(args: argparse.Namespace, work: Path) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    if args.only in (None, "sqlite"):
        url = f"sqlite+aiosqlite:///{work / 'plans.db'}"
        results["sqlite"] = await measure(url, args.rooms, args.turns)
    if args.only in (None, "postgresql"):
        if pg_binary("initdb") is None:
            print("PostgreSQL is not installed: SQLite only")
            return results
        server = PostgresServer()
        server.start()
        try:
            results["postgresql"] = await measure(
                await server.create_database(), args.rooms, args.turns
            )
        finally:
            server.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=20, help="rooms of the person")
    parser.add_argument("--turns", type=int, default=5000, help="finished turns in each room")
    parser.add_argument("--only", choices=("sqlite", "postgresql"), default=None, help="one only")
    parser.add_argument("--out", type=Path, default=RESULTS / "room_list_plans.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="band-plans-") as tmp:
        results = asyncio.run(run(args, Path(tmp)))
    print(report(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
