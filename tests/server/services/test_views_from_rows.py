"""Every view built with ``views.from_row`` from a real row (written to a migrated database and
read back), against the JSON it must give, field by field.

``from_row`` reads a row's attributes by the wire's names, so a renamed column, a field that
silently fell back to its default, or a time left unformatted shows here as a wrong value.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from band_server.services.archive.imports import run_view
from band_server.services.contacts.person_view import list_contacts
from band_server.services.contacts.requests import contact_view
from band_server.services.delegation.consents import consent_view, system_view
from band_server.services.identity.agents import agent_info
from band_server.services.identity.parties import party_by_id
from band_server.services.identity.principals import Principal
from band_server.services.identity.profile import profile_view
from band_server.services.jobs.bulk_deletions import job_view
from band_server.services.memories.records import memory_view
from band_server.services.rooms.files import file_view
from band_server.services.rooms.membership import Member
from band_server.services.tasks.shared import board_view, task_view
from band_server.services.views import room_event, room_view
from band_server.store.db import Database
from band_server.store.migrate import upgrade
from band_server.store.models import (
    Agent,
    BoardHistory,
    BulkDeletion,
    Contact,
    DelegationConsent,
    ImportRun,
    Memory,
    Participant,
    Room,
    RoomBoard,
    RoomFile,
    RoomTask,
    TargetSystem,
    TaskAssignee,
    TaskHistory,
    User,
)

CREATED = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)
UPDATED = datetime(2026, 2, 3, 4, 5, 6, 7, tzinfo=UTC)
C, U = "2026-01-02T03:04:05.678901Z", "2026-02-03T04:05:06.000007Z"
ANN = {"id": "u1", "name": "Ann", "handle": "ann", "type": "User"}
BOT = {"id": "a1", "name": "Bot", "handle": "ann/bot", "type": "Agent"}
STAMPS = {"created_at": CREATED, "updated_at": UPDATED}
FORBIDDEN = {"code": "forbidden", "message": "m"}
EDGE = {"contact_type": "User", "created_at": UPDATED}


@pytest.fixture
async def session(tmp_path: Path) -> AsyncIterator[AsyncSession]:
    """A migrated database holding one row of each kind, read back in a fresh session."""
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'views.db'}")
    await upgrade(db.engine)
    async with db.write() as s:
        s.add_all(
            [
                User(id="u1", name="Ann", handle="ann", email="ann@example.org", **STAMPS),
                User(id="u2", name="Bo", handle="bo", email="bo@example.org", role="admin"),
            ]
        )
        await s.flush()  # (no relationships: the session inserts in the order it flushes)
        s.add_all(
            [
                Agent(
                    id="a1",
                    owner_id="u1",
                    name="Bot",
                    handle="ann/bot",
                    description="helps",
                    **STAMPS,
                ),
                Room(id="r1", title="Plans", owner_id="u1", owner_type="User", **STAMPS),
                Contact(id="c1", owner_id="u2", owner_type="User", contact_id="u1", **EDGE),
                Contact(id="c2", owner_id="u2", owner_type="User", contact_id="a1", **EDGE),
                Memory(
                    id="m1",
                    owner_id="a1",
                    owner_type="Agent",
                    content="likes tea",
                    system="long_term",
                    type="semantic",
                    segment="user",
                    scope="subject",
                    subject_id="u1",
                    meta={"k": [1, 2]},
                    **STAMPS,
                ),
                TargetSystem(id="s1", owner_id="u1", name="CRM", key_hash="h", created_at=CREATED),
                DelegationConsent(
                    id="d1", person_id="u2", agent_id="a1", system_id="s1", created_at=CREATED
                ),
                BulkDeletion(
                    id="j1",
                    owner_id="u1",
                    resource_type="agent",
                    status="processing",
                    results=[
                        {"id": "x", "status": "succeeded"},
                        {"id": "y", "status": "failed", "error": FORBIDDEN},
                        {"id": "z", "status": "pending"},
                    ],
                    created_at=CREATED,
                    started_at=UPDATED,
                ),
                ImportRun(
                    id="i1",
                    archive_id="arch",
                    created_by="u1",
                    source={"host": "h"},
                    expected={"room": 2},
                    applied={"room": 1},
                    created_at=CREATED,
                ),
            ]
        )
        await s.flush()
        s.add_all(
            [
                Contact(id="c3", owner_id="u1", owner_type="User", contact_id="a1", **EDGE),
                Participant(id="p1", room_id="r1", participant_id="a1", participant_type="Agent"),
                RoomFile(
                    id="f1",
                    room_id="r1",
                    sha256="ab" * 32,
                    name="a.txt",
                    content_type="text/plain",
                    size=12,
                    uploader_id="u1",
                    uploader_type="User",
                ),
                RoomTask(
                    id="t1",
                    room_id="r1",
                    number=3,
                    subject="Ship",
                    created_by=ANN,
                    started_at=CREATED,
                    **STAMPS,
                ),
                RoomBoard(
                    room_id="r1", created_by=ANN, updated_by=BOT, goal_title="Goal", **STAMPS
                ),
                BoardHistory(room_id="r1", event="goal_set", actor=ANN, at=CREATED),
            ]
        )
        await s.flush()
        s.add_all(
            [
                Room(id="r9", task_id="t1", owner_id="a1", owner_type="Agent", **STAMPS),
                TaskAssignee(
                    task_id="t1",
                    assignee_id="a1",
                    assignee=BOT,
                    status="in_progress",
                    active_form="Shipping",
                    **STAMPS,
                ),
                TaskHistory(task_id="t1", event="created", actor=ANN, payload={"n": 1}, at=UPDATED),
            ]
        )
    try:
        async with db.read() as s:
            yield s
    finally:
        await db.dispose()


def _json(view: Any) -> dict[str, Any]:
    out: dict[str, Any] = view.model_dump(mode="json")
    return out


async def _one(session: AsyncSession, kind: type[Any], key: Any) -> Any:
    row = await session.get(kind, key)
    assert row is not None
    return row


async def test_rooms_people_and_agents(session: AsyncSession) -> None:
    room = await _one(session, Room, "r1")
    common = {"id": "r1", "title": "Plans", "task_id": None, "inserted_at": C, "updated_at": U}
    assert _json(room_view(room)) == {**common, "owner_id": "u1"}
    assert _json(room_event(room)) == common
    tasked = await _one(session, Room, "r9")  # no title, a task's room
    of_task = {**common, "id": "r9", "title": None, "task_id": "t1"}
    assert _json(room_view(tasked)) == {**of_task, "owner_id": "a1"}
    assert _json(room_event(tasked)) == of_task
    ann, bo = await _one(session, User, "u1"), await _one(session, User, "u2")
    assert _json(profile_view(ann)) == {
        "id": "u1",
        "name": "Ann",
        "handle": "ann",
        "email": "ann@example.org",
        "role": "user",
        "first_name": None,
        "last_name": None,
        "listed_in_directory": False,
        "inserted_at": C,
        "updated_at": U,
    }
    assert _json(profile_view(bo))["role"] == "admin"
    agent = await _one(session, Agent, "a1")
    assert _json(agent_info(agent, online=True)) == {
        "id": "a1",
        "name": "Bot",
        "handle": "ann/bot",
        "description": "helps",
        "owner_uuid": "u1",
        "owner_id": "u1",
        "is_external": True,
        "listed_in_directory": False,
        "online": True,
        "inserted_at": C,
        "updated_at": U,
    }
    member = Member(await _one(session, Participant, "p1"), "Bot", "ann/bot", None)
    assert _json(member.view(online=True)) == {
        "id": "a1",
        "role": "member",
        "status": "active",
        "type": "Agent",
        "name": "Bot",
        "handle": "ann/bot",
        "description": None,
        "online": True,
    }
    assert _json(member.event()) == {
        "id": "a1",
        "name": "Bot",
        "type": "Agent",
        "handle": "ann/bot",
        "description": None,
    }


async def test_contacts(session: AsyncSession) -> None:
    party = await party_by_id(session, "a1")
    assert party is not None
    edge = await _one(session, Contact, "c3")
    assert _json(contact_view(party, edge, True)) == {
        "id": "a1",
        "handle": "ann/bot",
        "name": "Bot",
        "type": "Agent",
        "description": "helps",
        "online": True,
        "inserted_at": U,
    }
    bo = Principal("user", "u2", "Bo", "bo")
    listed, total = await list_contacts(session, bo, page=1, page_size=10, online="u1".__eq__)
    assert total == 2
    person, agent = sorted((_json(v) for v in listed), key=lambda v: str(v["id"]))
    assert person == {
        "id": "c1",
        "contact_id": "u1",
        "contact_type": "User",
        "handle": "ann",
        "name": "Ann",
        "description": None,
        "user": {"id": "u1", "handle": "ann", "name": "Ann", "email": "ann@example.org"},
        "online": True,
        "status": "active",
        "source": "request",
        "inserted_at": U,
    }
    assert agent == {**person, "id": "c2", "contact_id": "a1", "contact_type": "Agent"} | {
        "handle": "ann/bot",
        "name": "Bot",
        "description": "helps",
        "user": None,
        "online": False,
    }


async def test_memories_systems_consents_files(session: AsyncSession) -> None:
    assert _json(memory_view(await _one(session, Memory, "m1"))) == {
        "id": "m1",
        "content": "likes tea",
        "scope": "subject",
        "segment": "user",
        "system": "long_term",
        "type": "semantic",
        "status": "active",
        "thought": None,
        "subject_id": "u1",
        "metadata": {"k": [1, 2]},
        "superseded_by": None,
        "inserted_at": C,
        "updated_at": U,
        "agent_id": "a1",
    }
    system = await _one(session, TargetSystem, "s1")
    assert _json(system_view(system)) == {
        "id": "s1",
        "name": "CRM",
        "description": None,
        "owner_id": "u1",
        "delegation_enabled": True,
        "inserted_at": C,
    }
    consent = await _one(session, DelegationConsent, "d1")
    agent = await _one(session, Agent, "a1")
    expected = {
        "id": "d1",
        "agent_id": "a1",
        "agent_handle": "ann/bot",
        "system_id": "s1",
        "system_name": "CRM",
        "inserted_at": C,
        "revoked_at": None,
    }
    assert _json(consent_view(consent, agent, system)) == expected
    consent.revoked_at = UPDATED
    assert _json(consent_view(consent, agent, system)) == {**expected, "revoked_at": U}
    assert _json(file_view(await _one(session, RoomFile, "f1"))) == {
        "id": "f1",
        "name": "a.txt",
        "content_type": "text/plain",
        "bytes": 12,
        "sha256": "ab" * 32,
        "has_thumb": False,
        "expires_at": None,
    }


async def test_tasks_and_the_board(session: AsyncSession) -> None:
    task = await _one(session, RoomTask, "t1")
    assignee = await _one(session, TaskAssignee, ("t1", "a1"))
    history = [await _one(session, TaskHistory, 1)]
    common = {
        "id": "t1",
        "number": 3,
        "chat_room_id": "r1",
        "subject": "Ship",
        "detail": "",
        "state": "active",
        "overall_status": "pending",
        "assignments": [
            {
                "assignee": BOT,
                "status": "in_progress",
                "active_form": "Shipping",
                "linked_native_id": "",
                "updated_at": U,
            }
        ],
        "created_by": ANN,
        "superseded_by_id": None,
        "started_at": C,
        "completed_at": None,
        "inserted_at": C,
        "updated_at": U,
    }
    assert _json(task_view(task, [assignee])) == {
        **common,
        "history": None,
        "history_truncated": None,
    }
    event = {"event": "created", "actor": ANN, "at": U, "payload": {"n": 1}}
    assert _json(task_view(task, [assignee], history, True)) == {
        **common,
        "history": [event],
        "history_truncated": True,
    }
    board = await _one(session, RoomBoard, "r1")
    board_events = [await _one(session, BoardHistory, 1)]
    assert _json(board_view("r1", board, board_events, False)) == {
        "chat_room_id": "r1",
        "goal_title": "Goal",
        "goal_summary": None,
        "created_by": ANN,
        "updated_by": BOT,
        "inserted_at": C,
        "updated_at": U,
        "history": [{"event": "goal_set", "actor": ANN, "at": C, "payload": {}}],
        "history_truncated": False,
    }


async def test_jobs_and_imports(session: AsyncSession) -> None:
    job = await _one(session, BulkDeletion, "j1")
    assert _json(job_view(job)) == {
        "id": "j1",
        "resource_type": "agent",
        "status": "processing",
        "force": False,
        "total": 3,
        "processed": 2,
        "succeeded": 1,
        "failed": 1,
        "results": [
            {"id": "x", "status": "succeeded", "error": None},
            {"id": "y", "status": "failed", "error": FORBIDDEN},
            {"id": "z", "status": "pending", "error": None},
        ],
        "inserted_at": C,
        "started_at": U,
        "completed_at": None,
    }
    run = await _one(session, ImportRun, "i1")
    expected = {
        "id": "i1",
        "archive_id": "arch",
        "status": "running",
        "source": {"host": "h"},
        "expected": {"room": 2},
        "applied": {"room": 1},
        "inserted_at": C,
        "finished_at": None,
    }
    assert _json(run_view(run)) == expected
    run.finished_at = UPDATED
    assert _json(run_view(run)) == {**expected, "status": "finished", "finished_at": U}
