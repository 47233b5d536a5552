"""Room tasks and the board on both surfaces (``.../chats/{id}/tasks``, ``.../board``).

One router factory, mounted under the agent surface and the human surface; its read routes
(``task_reads``) also serve the admin surface, which reads any room. No ``from __future__
import annotations``: FastAPI must resolve the local ``Caller`` alias at once.
"""

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query

from band_protocol.tasks import (
    Board,
    BoardUpdateBody,
    Task,
    TaskCreateBody,
    TaskEvent,
    TaskUpdateBody,
)

from ..context import Platform
from ..http.deps import PlatformDep
from ..http.json_body import JsonRoute
from ..services.identity.principals import Principal
from ..services.tasks import board
from ..services.tasks import room_tasks as tasks
from ..services.unit import write
from .answers import many, one
from .listing import Cursor, Limit, data, listing

if TYPE_CHECKING:
    from ..store.models import Room

__all__ = ["Include", "RoomOf", "StateFilter", "task_reads", "task_routes"]

TaskRef = Annotated[str, "a task id or board number"]
Include = Annotated[Literal["history"] | None, Query()]
StateName = Literal["active", "cancelled", "superseded", "archived", "all"]
StateFilter = Annotated[StateName, Query()]
RoomOf = Callable[[Platform, Principal, str], Awaitable["Room"]]
"""How a surface finds the room a route names for its caller (404 when it may not read it)."""


async def member_room(platform: Platform, me: Principal, chat_id: str) -> "Room":
    """The room if the caller is one of its active participants (404 otherwise)."""
    return (await platform.rosters.room_for(platform.db, me, chat_id)).room


def task_reads(
    router: APIRouter, principal: Any, room_of: RoomOf, default_state: StateName
) -> None:
    """Add the task list, a task's history and the board to ``router``: the caller is the
    ``principal`` dependency, the room is found by ``room_of``; ``state`` defaults to
    ``default_state``."""
    Caller = Annotated[Principal, Depends(principal)]

    @router.get("/chats/{chat_id}/tasks", responses=many(Task))
    async def list_tasks(
        platform: PlatformDep,
        me: Caller,
        chat_id: str,
        state: StateFilter = default_state,
        cursor: Cursor = None,
        limit: Limit = 50,
    ) -> dict[str, Any]:
        """The room's tasks by number, those in one state (``state``; ``all``: every state)."""
        room = await room_of(platform, me, chat_id)
        async with platform.db.read() as session:
            page = await tasks.list_tasks(session, room, state=state, cursor=cursor, limit=limit)
        return listing(page.items, page.metadata(limit))

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
        room = await room_of(platform, me, chat_id)
        async with platform.db.read() as session:
            page = await tasks.task_history(session, room, task_id, cursor=cursor, limit=limit)
        return listing(page.history, page.metadata(limit))

    @router.get("/chats/{chat_id}/board", responses=one(Board))
    async def get_board(
        platform: PlatformDep, me: Caller, chat_id: str, include: Include = None
    ) -> dict[str, Any]:
        """The room's goal (an empty default until one is set)."""
        room = await room_of(platform, me, chat_id)
        async with platform.db.read() as session:
            return data(await board.get_board(session, room, include))


def task_routes(principal: Any) -> APIRouter:
    """The task and board routes, authenticated by the ``principal`` dependency of a surface."""
    router = APIRouter(route_class=JsonRoute)
    task_reads(router, principal, member_room, "active")
    Caller = Annotated[Principal, Depends(principal)]

    @router.post("/chats/{chat_id}/tasks", status_code=201, responses=one(Task, 201))
    async def create_task(
        platform: PlatformDep, me: Caller, chat_id: str, body: TaskCreateBody
    ) -> dict[str, Any]:
        """Create a task (the caller is not assigned); ``supersedes_id`` retires another."""
        room = await member_room(platform, me, chat_id)
        async with write(platform) as uow:
            task = await tasks.create_task(uow, me, room, body)
        return data(task)

    @router.get("/chats/{chat_id}/tasks/{task_id}", responses=one(Task))
    async def get_task(
        platform: PlatformDep, me: Caller, chat_id: str, task_id: TaskRef, include: Include = None
    ) -> dict[str, Any]:
        """One task by id or board number, in any state."""
        room = await member_room(platform, me, chat_id)
        async with platform.db.read() as session:
            return data(await tasks.get_task(session, room, task_id, include))

    @router.post("/chats/{chat_id}/tasks/{task_id}", responses=one(Task))
    async def update_task(
        platform: PlatformDep, me: Caller, chat_id: str, task_id: TaskRef, body: TaskUpdateBody
    ) -> dict[str, Any]:
        """Report the caller's status, comment, edit, or cancel / archive / restore."""
        room = await member_room(platform, me, chat_id)
        async with write(platform) as uow:
            task = await tasks.update_task(uow, me, room, task_id, body)
        return data(task)

    @router.put("/chats/{chat_id}/board", responses=one(Board))
    async def put_board(
        platform: PlatformDep, me: Caller, chat_id: str, body: BoardUpdateBody
    ) -> dict[str, Any]:
        """Set or change the room's goal; only the fields sent change."""
        room = await member_room(platform, me, chat_id)
        async with write(platform) as uow:
            goal = await board.set_board(uow, me, room, body)
        return data(goal)

    return router
