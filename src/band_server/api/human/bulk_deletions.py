"""Human surface: bulk deletions of the caller's rooms and agents, run as background jobs."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from band_protocol import BulkDeleteAgentsBody, BulkDeleteChatsBody, BulkDeletionJob, Envelope

from ...http.deps import PlatformDep, UserDep
from ...http.json_body import JsonRoute
from ...services.jobs import bulk_deletions
from ...services.unit import write
from ..answers import Responses, one
from ..listing import data

router = APIRouter(route_class=JsonRoute)

ACCEPTED: Responses = {
    202: {
        "model": Envelope[BulkDeletionJob],
        "description": "Accepted: the job, to poll at its Location",
        "headers": {"Location": {"description": "The job", "schema": {"type": "string"}}},
    }
}


def _accepted(request: Request, job: BulkDeletionJob) -> JSONResponse:
    location = str(request.url_for("show_bulk_deletion", job_id=job.id).path)
    return JSONResponse(data(job), status_code=202, headers={"Location": location})


@router.post("/chats/bulk-delete", status_code=202, responses=ACCEPTED)
async def bulk_delete_chats(
    request: Request, platform: PlatformDep, me: UserDep, body: BulkDeleteChatsBody
) -> JSONResponse:
    """Start a job soft-deleting up to 100 rooms; poll the ``Location`` until it finishes."""
    async with write(platform) as uow:
        job = await bulk_deletions.accept(uow.session, me, "chat", body.ids, force=False)
    platform.jobs.start(platform, job.id)
    return _accepted(request, job)


@router.post("/agents/bulk-delete", status_code=202, responses=ACCEPTED)
async def bulk_delete_agents(
    request: Request, platform: PlatformDep, me: UserDep, body: BulkDeleteAgentsBody
) -> JSONResponse:
    """Start a job deleting up to 100 agents (``force`` erases their execution history)."""
    async with write(platform) as uow:
        job = await bulk_deletions.accept(uow.session, me, "agent", body.ids, force=body.force)
    platform.jobs.start(platform, job.id)
    return _accepted(request, job)


@router.get("/bulk-deletions/{job_id}", name="show_bulk_deletion", responses=one(BulkDeletionJob))
async def show_bulk_deletion(platform: PlatformDep, me: UserDep, job_id: str) -> JSONResponse:
    """The caller's job with per-target results in request order (404 for anyone else's)."""
    async with platform.db.read() as session:
        job = await bulk_deletions.get_job(session, me, job_id)
    return JSONResponse(data(job))
