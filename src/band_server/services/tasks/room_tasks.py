"""Room tasks: create, read, list, update, history (the rules are in ``band_protocol.tasks``).

Principal-agnostic: people and agents call the same functions once the caller is known to be
in the room. Every change appends a history row and posts one ``task`` event to the room's
timeline, in the same transaction. A refused request raises before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from band_protocol import Task, TaskEvent, utcnow
from band_protocol.tasks import (
    STATE_MOVES,
    STATUS_MOVES,
    TASK_STATUSES,
    TaskCreateBody,
    TaskUpdateBody,
    overall_status,
    state_event,
)
from band_protocol.text import has_visible_text
from band_server.errors import ApiError, NotFound, ValidationFailed
from band_server.services.identity.principals import Principal
from band_server.services.tasks.shared import (
    actor_of,
    decode_cursor,
    encode_cursor,
    post_timeline,
    recent_history,
    snippet,
    task_event_view,
    task_view,
)
from band_server.services.unit import UnitOfWork
from band_server.store.models import Room, RoomTask, TaskAssignee, TaskHistory

__all__ = [
    "TaskPage",
    "create_task",
    "get_task",
    "list_tasks",
    "task_counts",
    "task_history",
    "update_task",
]


@dataclass(frozen=True)
class TaskPage:
    items: list[Task]
    history: list[TaskEvent]
    has_more: bool
    next_cursor: str | None

    def metadata(self, limit: int) -> dict[str, Any]:
        return {"has_more": self.has_more, "limit": limit, "next_cursor": self.next_cursor}


def _refuse(code: str, pointer: str, message: str) -> ApiError:
    return ApiError(message, code=code, status_code=422, details={pointer: [message]})


async def _find(session: AsyncSession, room: Room, ref: str) -> RoomTask | None:
    ref = ref.strip().removeprefix("#")
    if ref.isdigit() and len(ref) < 10:
        query = select(RoomTask).where(RoomTask.room_id == room.id, RoomTask.number == int(ref))
        found: RoomTask | None = await session.scalar(query)
        return found
    row = await session.get(RoomTask, ref) if len(ref) <= 36 else None
    return row if row is not None and row.room_id == room.id else None


async def _task(session: AsyncSession, room: Room, ref: str) -> RoomTask:
    """A task of this room by id or board number; anything else is the same 404."""
    row = await _find(session, room, ref)
    if row is None:
        raise NotFound("Task not found")
    return row


async def _assignees(session: AsyncSession, task_id: str) -> list[TaskAssignee]:
    query = select(TaskAssignee).where(TaskAssignee.task_id == task_id)
    return list(await session.scalars(query))


async def _view(session: AsyncSession, row: RoomTask, include: str | None = None) -> Task:
    if include != "history":
        return task_view(row, await _assignees(session, row.id))
    recent, truncated = await recent_history(session, TaskHistory, TaskHistory.task_id == row.id)
    return task_view(row, await _assignees(session, row.id), recent, truncated)


async def get_task(session: AsyncSession, room: Room, ref: str, include: str | None) -> Task:
    return await _view(session, await _task(session, room, ref), include)


Keyed = TypeVar("Keyed", RoomTask, TaskHistory)


async def _keyset(
    session: AsyncSession,
    query: Select[Keyed],
    key: InstrumentedAttribute[int],
    cursor: str | None,
    limit: int,
) -> tuple[list[Keyed], str | None]:
    """Up to ``limit`` rows of ``query`` after ``cursor`` in the order of ``key`` (an integer
    column), and the cursor of the next page when there is one."""
    after = decode_cursor(cursor)
    if after is not None:
        query = query.where(key > after)
    rows = list(await session.scalars(query.order_by(key).limit(limit + 1)))
    if len(rows) <= limit:
        return rows, None
    return rows[:limit], encode_cursor(int(getattr(rows[limit - 1], key.key)))


async def list_tasks(
    session: AsyncSession, room: Room, *, state: str, cursor: str | None, limit: int
) -> TaskPage:
    """The room's tasks by number; ``state`` "all" lifts the lifecycle filter."""
    query = select(RoomTask).where(RoomTask.room_id == room.id)
    if state != "all":
        query = query.where(RoomTask.state == state)
    rows, next_cursor = await _keyset(session, query, RoomTask.number, cursor, limit)
    ids = [r.id for r in rows]
    assignees: dict[str, list[TaskAssignee]] = {i: [] for i in ids}
    if ids:
        for a in await session.scalars(select(TaskAssignee).where(TaskAssignee.task_id.in_(ids))):
            assignees[a.task_id].append(a)
    items = [task_view(r, assignees[r.id]) for r in rows]
    return TaskPage(items, [], next_cursor is not None, next_cursor)


async def task_history(
    session: AsyncSession, room: Room, ref: str, *, cursor: str | None, limit: int
) -> TaskPage:
    """One page of a task's history, oldest first."""
    row = await _task(session, room, ref)
    query = select(TaskHistory).where(TaskHistory.task_id == row.id)
    rows, next_cursor = await _keyset(session, query, TaskHistory.id, cursor, limit)
    events = [task_event_view(r) for r in rows]
    return TaskPage([], events, next_cursor is not None, next_cursor)


async def task_counts(session: AsyncSession, room_ids: list[str]) -> dict[str, dict[str, int]]:
    """Active tasks per room by overall status, every status key present (zeros included);
    the ``task_counts`` of a room row."""
    counts = {room_id: dict.fromkeys(TASK_STATUSES, 0) for room_id in room_ids}
    if room_ids:
        rows = await session.execute(
            select(RoomTask.room_id, RoomTask.overall_status, func.count())
            .where(RoomTask.room_id.in_(room_ids), RoomTask.state == "active")
            .group_by(RoomTask.room_id, RoomTask.overall_status)
        )
        for room_id, status, count in rows:
            counts[room_id][status] = int(count)
    return counts


class _Changes:
    """The history rows (and timeline events) one request makes, written in order."""

    def __init__(self, uow: UnitOfWork, actor: Principal, room: Room) -> None:
        self.uow, self.actor, self.room = uow, actor, room
        self.pending: list[tuple[RoomTask, str, dict[str, Any], str]] = []

    def add(self, task: RoomTask, event: str, payload: dict[str, Any], says: str) -> None:
        self.pending.append((task, event, payload, says))

    async def write(self) -> None:
        session = self.uow.session
        actor = actor_of(self.actor)
        for task, event, payload, _ in self.pending:
            session.add(TaskHistory(task_id=task.id, event=event, actor=actor, payload=payload))
        await session.flush()
        for task, event, payload, says in self.pending:
            meta = {
                "event": event,
                "task_id": task.id,
                "number": task.number,
                "subject": task.subject,
                "state": task.state,
                "overall_status": task.overall_status,
                "payload": payload,
            }
            content = f"{self.actor.name} {says}"
            await post_timeline(self.uow, self.actor, self.room, content, {"band_task": meta})


def _named(task: RoomTask) -> str:
    return f'task #{task.number} "{snippet(task.subject)}"'


async def _next_number(session: AsyncSession, room: Room) -> int:
    # Lock the room row (PostgreSQL) so concurrent creates in one room take turns.
    await session.execute(select(Room.id).where(Room.id == room.id).with_for_update())
    top = await session.scalar(select(func.max(RoomTask.number)).where(RoomTask.room_id == room.id))
    return int(top or 0) + 1


async def create_task(uow: UnitOfWork, actor: Principal, room: Room, body: TaskCreateBody) -> Task:
    """A new active task (nobody assigned); ``supersedes_id`` retires an active task."""
    session = uow.session
    if not has_visible_text(body.subject):
        raise ValidationFailed("subject can't be blank", {"/subject": ["can't be blank"]})
    old = None
    if body.supersedes_id is not None:
        old = await _find(session, room, body.supersedes_id)
        if old is None:
            raise _refuse("unknown_task", "/supersedes_id", "is not a task of this room")
        if old.state != "active":
            raise _refuse("task_not_active", "/supersedes_id", f"that task is {old.state}")
    row = RoomTask(
        room_id=room.id,
        number=await _next_number(session, room),
        subject=body.subject.strip(),
        detail=body.detail or "",
        state="active",
        overall_status="pending",
        created_by=actor_of(actor),
    )
    session.add(row)
    await session.flush()
    changes = _Changes(uow, actor, room)
    changes.add(
        row, "created", {"subject": row.subject, "detail": row.detail}, f"created {_named(row)}"
    )
    if old is not None:
        old.state, old.superseded_by_id = "superseded", row.id
        payload = {"state": {"from": "active", "to": "superseded"}, "superseded_by_id": row.id}
        changes.add(old, "superseded", payload, f"replaced {_named(old)} with #{row.number}")
    await changes.write()
    return task_view(row, [])


def _check_update(task: RoomTask, body: TaskUpdateBody, current: str) -> None:
    """Refuse an update that can't apply (422), before anything changes."""
    work = [
        name
        for name in ("status", "active_form", "linked_native_id", "subject", "detail")
        if getattr(body, name) is not None
    ]
    if not work and body.comment is None and body.state is None:
        raise ValidationFailed(
            "send at least one of status, active_form, linked_native_id, comment, subject, "
            "detail, state",
            {"/": ["at least one field is required"]},
        )
    if work and task.state != "active":
        raise _refuse("task_not_active", f"/{work[0]}", f"the task is {task.state}")
    if body.subject is not None and not has_visible_text(body.subject):
        raise ValidationFailed("subject can't be blank", {"/subject": ["can't be blank"]})
    if (
        body.status is not None
        and body.status != current
        and body.status not in STATUS_MOVES[current]
    ):
        allowed = ", ".join(sorted(STATUS_MOVES[current])) or "nothing"
        raise _refuse(
            "invalid_status_transition",
            "/status",
            f"can't move from {current} to {body.status} (allowed: {allowed})",
        )
    moving = body.state is not None and body.state != task.state
    if moving and body.state not in STATE_MOVES[task.state]:
        raise _refuse(
            "invalid_state_transition", "/state", f"a {task.state} task can't become {body.state}"
        )


def _roll_up(task: RoomTask, assignees: list[TaskAssignee]) -> None:
    task.overall_status = overall_status(a.status for a in assignees)
    now = utcnow()
    if task.overall_status != "pending" and task.started_at is None:
        task.started_at = now
    if task.overall_status == "completed":
        task.completed_at = task.completed_at or now
    else:
        task.completed_at = None


async def update_task(
    uow: UnitOfWork, actor: Principal, room: Room, ref: str, body: TaskUpdateBody
) -> Task:
    """Apply work fields (the caller's own status), edits, a comment, then ``state``."""
    session = uow.session
    task = await _task(session, room, ref)
    assignees = await _assignees(session, task.id)
    mine = next((a for a in assignees if a.assignee_id == actor.id), None)
    current = mine.status if mine is not None else "pending"
    _check_update(task, body, current)
    changes = _Changes(uow, actor, room)
    now = utcnow()
    joins = mine is None and any(
        v is not None for v in (body.status, body.active_form, body.linked_native_id)
    )
    if joins:
        mine = TaskAssignee(
            task_id=task.id,
            assignee_id=actor.id,
            assignee=actor_of(actor),
            status="pending",
            active_form="",
            linked_native_id="",
            created_at=now,
            updated_at=now,
        )
        session.add(mine)
        assignees.append(mine)
    if mine is not None:
        status_moved = body.status is not None and (body.status != current or joins)
        linked = (
            body.linked_native_id is not None and body.linked_native_id != mine.linked_native_id
        )
        if body.active_form is not None:
            mine.active_form = body.active_form
        if body.linked_native_id is not None:
            mine.linked_native_id = body.linked_native_id
        if status_moved or linked:
            new = body.status or current
            mine.status = new
            payload: dict[str, Any] = {"status": {"from": current, "to": new}}
            if body.linked_native_id is not None:
                payload["linked_native_id"] = body.linked_native_id
            changes.add(
                task, "status_changed", payload, f"moved {_named(task)} from {current} to {new}"
            )
        mine.updated_at = now
        _roll_up(task, assignees)
    edits = {
        name: {"from": getattr(task, name), "to": value}
        for name, value in (("subject", body.subject), ("detail", body.detail))
        if value is not None and value != getattr(task, name)
    }
    if edits:
        for name, change in edits.items():
            setattr(task, name, change["to"])
        changes.add(task, "edited", edits, f"edited {_named(task)} ({', '.join(edits)})")
    if body.comment is not None and has_visible_text(body.comment):
        says = f"commented on {_named(task)}: {snippet(body.comment)}"
        changes.add(task, "commented", {"text": body.comment}, says)
    if body.state is not None and body.state != task.state:
        change = {"state": {"from": task.state, "to": body.state}}
        task.state = body.state
        verb = {"cancelled": "cancelled", "archived": "archived", "active": "restored"}[body.state]
        changes.add(task, state_event(body.state), change, f"{verb} {_named(task)}")
    task.updated_at = now
    await changes.write()
    return task_view(task, assignees)
