"""Human surface: target systems and the caller's delegation consents."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from band_protocol.delegation import (
    Consent,
    ConsentBody,
    SystemRegisterBody,
    SystemRegistered,
    TargetSystem,
)

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.delegation import consents
from ...services.unit import write
from ..answers import many, not_found, one, secret, secret_answer
from ..listing import PagingDep, data, listing

router = APIRouter(route_class=JsonRoute)


@router.post("/delegation/systems", status_code=201, responses=secret(SystemRegistered, 201))
async def register_system(
    platform: PlatformDep, me: UserDep, body: SystemRegisterBody
) -> JSONResponse:
    """Register a target system; the answer holds its key (shown this once), which the system
    sends to ``POST /api/v1/delegation/introspect`` to check tokens."""
    async with write(platform) as uow:
        made = await consents.register_system(
            uow.session, me, name=body.system.name, description=body.system.description
        )
    return secret_answer(data(made), 201)


@router.get("/delegation/systems", responses=many(TargetSystem))
async def list_systems(platform: PlatformDep, me: UserDep, paging: PagingDep) -> dict[str, Any]:
    """Every system of the platform people can consent to, oldest first."""
    async with platform.db.read() as session:
        found, total = await consents.list_systems(
            session, page=paging.page, page_size=paging.page_size
        )
    return listing(found, paging.meta(total))


@router.delete("/delegation/systems/{system_id}", responses=one(TargetSystem))
async def delete_system(platform: PlatformDep, me: UserDep, system_id: str) -> dict[str, Any]:
    """Delete a system you registered: its key, consents and tokens stop working at once."""
    async with write(platform) as uow:
        gone = await consents.delete_system(uow.session, me, system_id)
    return data(gone)


@router.post(
    "/delegation/consents",
    status_code=201,
    responses={**one(Consent, 201), **not_found("agent or system")},
)
async def grant_consent(platform: PlatformDep, me: UserDep, body: ConsentBody) -> dict[str, Any]:
    """Let another owner's agent act for you at one system (granting twice is one consent)."""
    async with write(platform) as uow:
        given = await consents.grant(
            uow.session, me, agent_id=body.consent.agent_id, system_id=body.consent.system_id
        )
    return data(given)


@router.get("/delegation/consents", responses=many(Consent))
async def list_consents(platform: PlatformDep, me: UserDep) -> dict[str, Any]:
    """Your live consents."""
    async with platform.db.read() as session:
        found = await consents.list_consents(session, me)
    return listing(found, {"total_count": len(found)})


@router.delete("/delegation/consents/{consent_id}", responses=one(Consent))
async def revoke_consent(platform: PlatformDep, me: UserDep, consent_id: str) -> dict[str, Any]:
    """Withdraw a consent; tokens minted under it stop being active at once."""
    async with write(platform) as uow:
        gone = await consents.revoke(uow.session, me, consent_id)
    return data(gone)
