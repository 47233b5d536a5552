"""Room tasks and the board on both surfaces (``.../chats/{id}/tasks``, ``.../board``).

One router factory, mounted under the agent surface and the human surface. No ``from
__future__ import annotations``: FastAPI must resolve the local ``Caller`` alias at once.
"""

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query

from band_protocol.tasks import (
    Board,
    BoardUpdateBody,
    Task,
    TaskCreateBody,
    TaskEvent,
    TaskUpdateBody,
)

from ..http.deps import PlatformDep
from ..http.json_body import JsonRoute
from ..services.identity.principals import Principal
from ..services.tasks import board
from ..services.tasks import room_tasks as tasks
from ..services.unit import write
from .answers import many, one
from .listing import Cursor, Limit, data, listing

__all__ = ["Include", "StateFilter", "task_routes"]

TaskRef = Annotated[str, "a task id or board number"]
Include = Annotated[Literal["history"] | None, Query()]
StateFilter = Annotated[Literal["active", "cancelled", "superseded", "archived", "all"], Query()]


def task_routes(principal: Any) -> APIRouter:
    """The task and board routes, authenticated by the ``principal`` dependency of a surface."""
    router = APIRouter(route_class=JsonRoute)
    Caller = Annotated[Principal, Depends(principal)]

    @router.get("/chats/{chat_id}/tasks", responses=many(Task))
    async def list_tasks(
        platform: PlatformDep,
        me: Caller,
        chat_id: str,
        state: StateFilter = "active",
        cursor: Cursor = None,
        limit: Limit = 50,
    ) -> dict[str, Any]:
        """The room's tasks by number (active ones unless ``state`` says otherwise)."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with platform.db.read() as session:
            page = await tasks.list_tasks(
                session, snap.room, state=state, cursor=cursor, limit=limit
            )
        return listing(page.items, page.metadata(limit))

    @router.post("/chats/{chat_id}/tasks", status_code=201, responses=one(Task, 201))
    async def create_task(
        platform: PlatformDep, me: Caller, chat_id: str, body: TaskCreateBody
    ) -> dict[str, Any]:
        """Create a task (the caller is not assigned); ``supersedes_id`` retires another."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with write(platform) as uow:
            task = await tasks.create_task(uow, me, snap.room, body)
        return data(task)

    @router.get("/chats/{chat_id}/tasks/{task_id}", responses=one(Task))
    async def get_task(
        platform: PlatformDep, me: Caller, chat_id: str, task_id: TaskRef, include: Include = None
    ) -> dict[str, Any]:
        """One task by id or board number, in any state."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with platform.db.read() as session:
            return data(await tasks.get_task(session, snap.room, task_id, include))

    @router.post("/chats/{chat_id}/tasks/{task_id}", responses=one(Task))
    async def update_task(
        platform: PlatformDep, me: Caller, chat_id: str, task_id: TaskRef, body: TaskUpdateBody
    ) -> dict[str, Any]:
        """Report the caller's status, comment, edit, or cancel / archive / restore."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with write(platform) as uow:
            task = await tasks.update_task(uow, me, snap.room, task_id, body)
        return data(task)

    @router.get("/chats/{chat_id}/tasks/{task_id}/history", responses=many(TaskEvent))
    async def task_history(
        platform: PlatformDep,
        me: Caller,
        chat_id: str,
        task_id: TaskRef,
        cursor: Cursor = None,
        limit: Limit = 50,
    ) -> dict[str, Any]:
        """A task's append-only history, oldest first."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with platform.db.read() as session:
            page = await tasks.task_history(session, snap.room, task_id, cursor=cursor, limit=limit)
        return listing(page.history, page.metadata(limit))

    @router.get("/chats/{chat_id}/board", responses=one(Board))
    async def get_board(
        platform: PlatformDep, me: Caller, chat_id: str, include: Include = None
    ) -> dict[str, Any]:
        """The room's goal (an empty default until one is set)."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with platform.db.read() as session:
            return data(await board.get_board(session, snap.room, include))

    @router.put("/chats/{chat_id}/board", responses=one(Board))
    async def put_board(
        platform: PlatformDep, me: Caller, chat_id: str, body: BoardUpdateBody
    ) -> dict[str, Any]:
        """Set or change the room's goal; only the fields sent change."""
        snap = await platform.rosters.room_for(platform.db, me, chat_id)
        async with write(platform) as uow:
            goal = await board.set_board(uow, me, snap.room, body)
        return data(goal)

    return router
