"""The room list's bounded reads answer what the scans they replaced answered (issue 26).

The web app's room list and the room rows of both surfaces used to read every message of
every room: a grouped ``max(created_at)``, a grouped ``max(seq)`` joined back for the newest
(text) message, and a count of every text from others after the person's read marker. Those
statements are kept (``room_list_definitions``) as the definitions; on generated histories
(senders of every kind, people who left, events between texts, timestamps out of sequence
order, markers before, inside and past the end, empty rooms) the new reads
(``services.rooms.rows``, an index lookup a room, the last activity kept on the room's row by
the writers' ``store.room_seqs.newest``) must give the same answers, on SQLite and on
PostgreSQL.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import bindparam, insert, update
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.services.rooms import rows
from band_server.store import room_seqs
from band_server.store.models import Agent, Message, Participant, Room, User

from .real_services import PostgresServer
from .room_list_definitions import old_last_activity, old_newest, old_unread

HISTORIES = 12
ROOMS = Room.metadata.tables[Room.__tablename__]
TYPES = ("text", "text", "text", "tool_call", "thought", "task")


@pytest.fixture(params=["sqlite", "postgresql"])
async def platform(
    request: pytest.FixtureRequest, tmp_path: Path, postgres_server: PostgresServer
) -> AsyncIterator[Platform]:
    url = await postgres_server.create_database() if request.param == "postgresql" else None
    app = create_app(Settings(data_dir=tmp_path / "data", database_url=url, redis_url=None))
    async with app.router.lifespan_context(app):
        found: Platform = app.state.platform
        assert found.db.engine.dialect.name == request.param
        yield found


# -- generated histories ---------------------------------------------------------------------


async def _history(session: AsyncSession, rng: random.Random, n: int) -> list[str]:
    """People and agents, rooms of random rosters (some left), random messages with
    timestamps that may run against the sequence, random read markers; the room ids."""
    start = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=n)
    people = [f"p{n}-{i}" for i in range(3)]
    agents = [f"a{n}-{i}" for i in range(3)]
    await session.execute(
        insert(User),
        [{"id": p, "name": p, "handle": p, "email": f"{p}@example.test"} for p in people],
    )
    await session.execute(
        insert(Agent),
        [
            {"id": a, "owner_id": people[0], "name": a, "handle": a, "description": "", "tags": []}
            for a in agents
        ],
    )
    room_ids = []
    for r in range(rng.randint(1, 4)):
        room_id = f"r{n}-{r}"
        length = rng.choice((0, 1, 2, 5, 20, 60))
        await session.execute(
            insert(Room),
            [{"id": room_id, "owner_id": people[0], "owner_type": "User", "last_seq": length}],
        )
        senders = [(p, "User") for p in people] + [(a, "Agent") for a in agents]
        at = start
        messages = []
        for seq in range(1, length + 1):
            who, kind = rng.choice(senders)
            at += timedelta(seconds=rng.choice((-3, 0, 1, 1, 2)))  # sometimes out of order
            messages.append(
                {
                    "id": f"{room_id}-m{seq}",
                    "room_id": room_id,
                    "seq": seq,
                    "sender_id": who,
                    "sender_type": kind,
                    "message_type": rng.choice(TYPES),
                    "content": "x",
                    "metadata": {},
                    "created_at": at,
                    "updated_at": at,
                }
            )
        if messages:
            await session.execute(insert(Message), messages)
            # Each message's time onto its room's row, as every writer of messages moves it
            # (store.room_seqs.newest), in the history's order: times run against seq.
            await session.execute(
                update(ROOMS)
                .where(ROOMS.c.id == bindparam("room"))
                .values(last_message_at=room_seqs.newest(room_seqs.AT)),
                [{"room": room_id, "at": m["created_at"]} for m in messages],
            )
        members = [(p, "User") for p in people if rng.random() < 0.8]
        members += [(a, "Agent") for a in agents if rng.random() < 0.6]
        if members:
            await session.execute(
                insert(Participant),
                [
                    {
                        "id": f"{room_id}-{who}",
                        "room_id": room_id,
                        "participant_id": who,
                        "participant_type": kind,
                        "status": rng.choice(("active", "active", "active", "removed")),
                        "last_read_seq": rng.choice((0, length // 2, length, length + 2)),
                    }
                    for who, kind in members
                ],
            )
        room_ids.append(room_id)
    return room_ids


async def test_room_list_reads_answer_as_the_scans_they_replaced(platform: Platform) -> None:
    compared = {"rooms": 0, "unread": 0}
    for n in range(HISTORIES):
        rng = random.Random(26_000 + n)
        async with platform.db.write() as session:
            ids = await _history(session, rng, n)
        async with platform.db.read() as session:
            assert await rows.last_activity(session, ids) == await old_last_activity(session, ids)
            for kind in (None, "text"):
                newest = {m.id for m in await rows.newest_messages(session, ids, kind)}
                assert newest == await old_newest(session, ids, kind), (n, kind)
            for i in range(3):
                person = f"p{n}-{i}"
                new = await rows.unread_counts(session, person, ids)
                old = await old_unread(session, person, ids)
                # The old grouped count left out rooms with none unread; the new read says 0.
                assert {k: v for k, v in new.items() if v} == old, (n, person)
                compared["unread"] += sum(old.values())
            compared["rooms"] += len(ids)
    # The histories exercised something: rooms and unread texts.
    assert compared["rooms"] >= HISTORIES and compared["unread"] > 50, compared
