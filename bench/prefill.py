"""A database that looks like a long soak's, written in seconds: rooms full of finished turns.

Each turn is what the soak's load leaves in a room: a person's mention of an agent (its
mention row, the agent's delivery ``processed`` after one successful attempt), the agent's
``tool_call`` event, and its keyed reply mentioning the person. Rows go in with multi-row
Core inserts in large transactions (no app, no fan-out), on SQLite or PostgreSQL, so the
database-size effects of a 20-minute soak (issue 26) can be reproduced and timed per
statement in a minute. SQLite's search triggers (migration 0013) index the texts as posts do.

    .venv/bin/python -m bench.prefill DATABASE_URL --turns 5000   (every room of the database)

``prefill()`` is what ``bench.soak --prefill`` and ``bench.db_growth`` call.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from band_server.store import room_seqs
from band_server.store.models import (
    Agent,
    Delivery,
    DeliveryAttempt,
    Message,
    Participant,
    Room,
    User,
)

BATCH = 500  # turns a transaction


def _id() -> str:
    return str(uuid.uuid4())


def _turn_rows(
    room: Room, seq: int, person: User, agent: Agent, at: datetime
) -> dict[str, list[dict[str, Any]]]:
    token = f"m{seq}-{uuid.uuid4().hex[:8]}"
    mention, event, reply, delivery = _id(), _id(), _id(), _id()
    later = at + timedelta(milliseconds=40)

    def message(msg_id: str, n: int, sender: Any, kind: str, content: str, meta: Any) -> dict:
        sender_type = "Agent" if isinstance(sender, Agent) else "User"
        return {
            "id": msg_id,
            "room_id": room.id,
            "seq": n,
            "sender_id": sender.id,
            "sender_type": sender_type,
            "sender_name": sender.name,
            "message_type": kind,
            "content": content,
            "metadata": meta,
            "attachments": None,
            "idem_key": None,
            "idem_body": None,
            "created_at": at if n == seq else later,
            "updated_at": at if n == seq else later,
        }

    def named(who: Any, kind: str) -> dict[str, str]:
        return {"id": who.id, "handle": who.handle, "name": who.name, "type": kind}

    rows = {
        "messages": [
            message(
                mention,
                seq,
                person,
                "text",
                f"@[[{agent.id}]] {token}",
                {"mentions": [named(agent, "Agent")], "status": "sent"},
            ),
            message(event, seq + 1, agent, "tool_call", f"looking up {token}", {"tool": "lookup"}),
            message(
                reply,
                seq + 2,
                agent,
                "text",
                f"@[[{person.id}]] done: {token}",
                {"mentions": [named(person, "User")], "status": "sent"},
            ),
        ],
        "deliveries": [
            {
                "id": delivery,
                "message_id": mention,
                "room_id": room.id,
                "agent_id": agent.id,
                "seq": seq,
                "status": "processed",
                "attempt_number": 1,
                "delivered_at": at,
                "processed_at": later,
                "updated_at": later,
            }
        ],
        "delivery_attempts": [
            {
                "id": _id(),
                "delivery_id": delivery,
                "attempt_number": 1,
                "status": "success",
                "error": None,
                "started_at": at,
                "completed_at": later,
            }
        ],
    }
    # The reply's Idempotency-Key rides on it for a day (services.idempotency.row_keys).
    key = hashlib.sha256(f"{agent.id}:{mention}".encode()).hexdigest()
    rows["messages"][2].update(idem_key=key, idem_body=hashlib.sha256(key.encode()).hexdigest())
    return rows


async def prefill(
    engine: AsyncEngine,
    turns_per_room: int,
    *,
    start: datetime | None = None,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """``turns_per_room`` finished turns appended to every room (three messages each), the
    agents taking turns by roster order; returns the messages written."""
    tables = {
        "messages": Message.__table__,
        "deliveries": Delivery.__table__,
        "delivery_attempts": DeliveryAttempt.__table__,
    }
    async with engine.connect() as conn:
        rooms = list((await conn.execute(select(Room).where(Room.deleted_at.is_(None)))).all())
        people = {u.id: u for u in (await conn.execute(select(User))).all()}
        agents = {a.id: a for a in (await conn.execute(select(Agent))).all()}
        roster: dict[str, list[str]] = {}
        for room_id, who in await conn.execute(
            select(Participant.room_id, Participant.participant_id).order_by(
                Participant.room_id, Participant.participant_id
            )
        ):
            roster.setdefault(room_id, []).append(who)
    moment = start or datetime.now(UTC) - timedelta(hours=1)
    written = 0
    tops = {room.id: room.last_seq for room in rooms}
    newest: dict[str, datetime] = {}
    for first in range(0, turns_per_room, BATCH):
        batch: dict[str, list[dict[str, Any]]] = {name: [] for name in tables}
        moved: set[str] = set()
        for room in rooms:
            members = roster.get(room.id, [])
            person = next((people[m] for m in members if m in people), None)
            bots = [agents[m] for m in members if m in agents]
            if person is None or not bots:
                continue
            seq = tops[room.id]
            for k in range(first, min(first + BATCH, turns_per_room)):
                moment += timedelta(milliseconds=5)
                for name, rows in _turn_rows(
                    room, seq + 1, person, bots[k % len(bots)], moment
                ).items():
                    batch[name].extend(rows)
                seq += 3
            tops[room.id] = seq
            newest[room.id] = moment + timedelta(milliseconds=40)  # its last reply's time
            moved.add(room.id)
        async with engine.begin() as conn:
            for name, table in tables.items():
                if batch[name]:
                    await conn.execute(table.insert(), batch[name])
            for room_id in moved:  # its last activity too, as every writer of messages
                stmt = (
                    update(Room)
                    .where(Room.id == room_id)
                    .values(last_seq=tops[room_id], last_message_at=room_seqs.newest(room_seqs.AT))
                )
                await conn.execute(stmt, {"at": newest[room_id]})
        written += len(batch["messages"])
        if on_batch is not None:
            on_batch(written)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "url", help="the database URL (sqlite+aiosqlite:///... or postgresql+asyncpg://...)"
    )
    parser.add_argument("--turns", type=int, default=5000, help="finished turns added to each room")
    args = parser.parse_args()

    async def go() -> None:
        engine = create_async_engine(args.url)
        started = time.monotonic()
        try:
            done = await prefill(
                engine, args.turns, on_batch=lambda n: print(f"  {n} messages", flush=True)
            )
        finally:
            await engine.dispose()
        print(json.dumps({"messages": done, "seconds": round(time.monotonic() - started, 1)}))

    asyncio.run(go())


if __name__ == "__main__":
    main()
