"""Request-scoped dependencies: the platform, the caller, the request id."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from band_server.context import Platform
from band_server.errors import Forbidden
from band_server.services.identity.principals import Principal


async def get_platform(request: Request) -> Platform:
    # async on purpose: FastAPI runs a plain ``def`` dependency in a worker thread (a thread
    # hop per request for a lookup that takes nanoseconds).
    platform: Platform = request.app.state.platform
    return platform


PlatformDep = Annotated[Platform, Depends(get_platform)]


async def current_principal(
    request: Request,
    platform: PlatformDep,
    x_api_key: Annotated[str | None, Header()] = None,
) -> Principal:
    cached: Principal | None = getattr(request.state, "principal", None)
    if cached is not None:
        return cached
    principal = await platform.authenticate(x_api_key)
    request.state.principal = principal
    return principal


async def current_agent(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    if not principal.is_agent:
        raise Forbidden("This endpoint needs an agent API key", code="agent_key_required")
    return principal


async def current_user(principal: Annotated[Principal, Depends(current_principal)]) -> Principal:
    if principal.is_agent:
        raise Forbidden("This endpoint needs a person's API key", code="user_key_required")
    return principal


AgentDep = Annotated[Principal, Depends(current_agent)]
UserDep = Annotated[Principal, Depends(current_user)]
AnyPrincipalDep = Annotated[Principal, Depends(current_principal)]
