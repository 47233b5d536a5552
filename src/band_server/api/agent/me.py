"""Agent surface: ``GET /me``, the calling agent's identity."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from band_protocol import AgentMe

from ...http.deps import AgentDep, PlatformDep
from ...http.json_body import JsonRoute
from ...services.identity import accounts
from ..answers import one

router = APIRouter(route_class=JsonRoute)

# Optional capabilities this deployment serves (a missing key means "predates it").
FEATURE_FLAGS = {"ff_file_transfer": True, "ff_room_tasks": True}


@router.get("/me", responses=one(AgentMe))
async def get_me(platform: PlatformDep, agent: AgentDep) -> dict[str, Any]:
    """The agent behind the key (the official client refuses to start without a description)."""
    me = await accounts.agent_me(platform.db, agent, FEATURE_FLAGS)
    return {"data": me.model_dump(mode="json")}
