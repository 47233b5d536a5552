"""A memory's status routes on both surfaces (``POST /memories/{memory_id}/<action>``).

One table of actions, mounted by each surface with its own caller and wording. No ``from
__future__ import annotations``: FastAPI must resolve the ``caller`` alias at once.
"""

from typing import Annotated, Any

from fastapi import APIRouter, Depends

from band_protocol import AgentMemory

from ..http.deps import PlatformDep
from ..services.identity.principals import Principal
from ..services.memories.records import set_status
from ..services.unit import write
from .answers import one
from .listing import data

STATUSES = {"supersede": "superseded", "archive": "archived", "restore": "active"}
"""Each action and the status it gives the memory."""


def mount_status_routes(router: APIRouter, principal: Any, docs: dict[str, str]) -> None:
    """Mount the actions ``docs`` describes (action to its description), in that order, for
    the callers the ``principal`` dependency authenticates."""
    caller = Annotated[Principal, Depends(principal)]
    for action, description in docs.items():
        _mount(router, caller, action, STATUSES[action], description)


def _mount(router: APIRouter, caller: Any, action: str, status: str, description: str) -> None:
    async def route(platform: PlatformDep, me: caller, memory_id: str) -> dict[str, Any]:
        async with write(platform) as uow:
            view = await set_status(uow.session, me, memory_id, status)
        return data(view)

    router.add_api_route(
        f"/memories/{{memory_id}}/{action}",
        route,
        methods=["POST"],
        name=action,
        description=description,
        responses=one(AgentMemory),
    )
