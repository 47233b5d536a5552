"""Agent surface: ``GET /me``, the calling agent's identity."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band.protocol import AgentMe, iso

from ...errors import Unauthorized
from ...store.models import Agent
from ..answers import one
from ..deps import AgentDep, PlatformDep

router = APIRouter()

# Optional capabilities this deployment serves (a missing key means "predates it").
FEATURE_FLAGS = {"ff_file_transfer": True, "ff_room_tasks": True}


@router.get("/me", responses=one(AgentMe))
async def get_me(platform: PlatformDep, agent: AgentDep) -> dict[str, Any]:
    """The agent behind the key (the official client refuses to start without a description)."""
    async with platform.db.read() as session:
        row = await session.get(Agent, agent.id)
    if row is None or row.deleted_at is not None:
        raise Unauthorized("Invalid or revoked API key")
    me = AgentMe(
        id=row.id,
        name=row.name,
        handle=row.handle,
        description=row.description,
        owner_uuid=row.owner_id,
        feature_flags=dict(FEATURE_FLAGS),
        inserted_at=iso(row.created_at),
        updated_at=iso(row.updated_at),
    )
    return {"data": me.model_dump(mode="json")}
