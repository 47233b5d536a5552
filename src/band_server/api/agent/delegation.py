"""Agent surface: the delegated-token exchange (``POST /delegation/token``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from band_protocol import utcnow
from band_protocol.delegation import DelegatedToken, TokenExchangeBody

from ...config import Settings
from ...errors import ApiError
from ...http.deps import AgentDep, PlatformDep
from ...http.json_body import JsonRoute
from ...services import unit
from ...services.delegation import exchange as delegation
from ...services.identity.principals import Principal
from ..answers import not_found, secret, secret_answer

router = APIRouter(route_class=JsonRoute)


def policy(settings: Settings) -> delegation.Policy:
    return delegation.Policy(
        window=timedelta(seconds=settings.delegation_window),
        token_ttl=timedelta(seconds=settings.delegation_token_ttl),
        per_message=settings.delegation_exchanges_per_message,
    )


async def within_exchange_limit(platform: PlatformDep, agent: AgentDep) -> Principal:
    """The per-agent exchange limit, checked before the body or the message is looked at."""
    wait = await platform.exchange_limit.retry_after(agent.id)
    if wait is not None:
        raise ApiError(
            f"Too many token exchanges; retry in {wait} s",
            code="rate_limited",
            status_code=429,
            details={"retry_after": wait},
            headers={"Retry-After": str(wait)},
        )
    return agent


@router.post(
    "/delegation/token",
    responses={
        **secret(DelegatedToken, enveloped=False),
        **not_found("message (delivered to this agent)"),
        429: {"description": "Too many exchanges"},
    },
)
async def exchange_token(
    platform: PlatformDep,
    agent: Annotated[Principal, Depends(within_exchange_limit)],
    body: TokenExchangeBody,
) -> JSONResponse:
    """Redeem the message that triggered the agent for a short-lived token acting for the
    person who asked, at the one system named by ``audience`` (see docs/delegation.md)."""
    async with unit.write(platform) as uow:
        token = await delegation.exchange(
            uow.session,
            agent,
            audience=str(body.audience),
            message_id=body.message_id,
            policy=policy(platform.settings),
            now=utcnow(),
        )
    return secret_answer(token.model_dump(mode="json"))
