"""``POST /api/v1/delegation/introspect``: a target system checks a delegated token.

Authenticated by the system's own key (``X-API-Key``), not a person's or an agent's. The
answer follows RFC 7662: ``active`` and, only when active, who the token acts for.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from fastapi.responses import JSONResponse

from band_protocol import utcnow
from band_protocol.delegation import IntrospectBody, TokenIntrospection

from ..http.deps import PlatformDep
from ..http.json_body import JsonRoute
from ..services.delegation import exchange as delegation
from .answers import NO_STORE, answers

router = APIRouter(route_class=JsonRoute, tags=["delegation"])


@router.post("/introspect", responses=answers(TokenIntrospection))
async def introspect(
    platform: PlatformDep,
    body: IntrospectBody,
    x_api_key: Annotated[str | None, Header()] = None,
) -> JSONResponse:
    """Whether a token an agent presented is live for the calling system, and for whom."""
    async with platform.db.read() as session:
        system = await delegation.authenticate_system(session, x_api_key)
        found = await delegation.introspect(session, system, body.token, utcnow())
    return JSONResponse(found.model_dump(mode="json", exclude_none=True), headers=NO_STORE)
