"""Bulk deletions: a person deletes up to 100 of their rooms or agents in a background job.

How it works: docs/internals/server.md, "Bulk deletions".

A job outlives a crash or a restart; authorisation is decided by ownership.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import BulkDeletionItem, BulkDeletionJob, utcnow
from band_server.errors import ApiError, NotFound
from band_server.services.identity import agents as registry
from band_server.services.identity.principals import Principal
from band_server.services.ports import Backbone
from band_server.services.rooms import membership as rooms
from band_server.services.unit import UnitOfWork, write
from band_server.services.views import from_row
from band_server.store.models import Agent, BulkDeletion, Room

log = logging.getLogger("band_server.jobs")

ResourceType = Literal["chat", "agent"]
FINISHED = ("completed", "failed")


def job_view(job: BulkDeletion) -> BulkDeletionJob:
    items = [BulkDeletionItem.model_validate(r) for r in job.results]
    done = [i for i in items if i.status != "pending"]
    return from_row(
        BulkDeletionJob,
        job,
        resource_type="agent" if job.resource_type == "agent" else "chat",
        total=len(items),
        processed=len(done),
        succeeded=sum(1 for i in done if i.status == "succeeded"),
        failed=sum(1 for i in done if i.status == "failed"),
        results=items,
    )


async def accept(
    session: AsyncSession, me: Principal, resource_type: ResourceType, ids: list[str], force: bool
) -> BulkDeletionJob:
    """Write a queued job (the caller starts it after the commit)."""
    job = BulkDeletion(
        owner_id=me.id,
        resource_type=resource_type,
        force=force,
        status="queued",
        results=[{"id": target, "status": "pending"} for target in ids],
    )
    session.add(job)
    await session.flush()
    return job_view(job)


async def get_job(session: AsyncSession, me: Principal, job_id: str) -> BulkDeletionJob:
    """The caller's own job; anyone else's (or an unknown id) is 404."""
    job = await session.get(BulkDeletion, job_id)
    if job is None or job.owner_id != me.id:
        raise NotFound("Bulk deletion not found")
    return job_view(job)


async def _delete_chat(uow: UnitOfWork, me: Principal, room_id: str) -> None:
    session = uow.session
    room = await session.get(Room, room_id)
    if room is None or room.deleted_at is not None:
        raise NotFound("Chat room not found")
    owned = room.owner_id == me.id
    if not owned and room.owner_type == "Agent":
        owner = await session.get(Agent, room.owner_id)
        owned = owner is not None and owner.owner_id == me.id
    if not owned:
        if await rooms.membership(session, room.id, me.id) is None:
            raise NotFound("Chat room not found")
        raise ApiError("Only the room's owner can delete it", code="forbidden", status_code=403)
    uow.emit(*await rooms.delete_room(session, room))


async def _delete_one(uow: UnitOfWork, me: Principal, job: BulkDeletion, target: str) -> None:
    if job.resource_type == "chat":
        await _delete_chat(uow, me, target)
    else:
        await registry.delete_agent(uow, me, target, force=job.force)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"code": code, "message": message}


async def _step(platform: Backbone, job_id: str) -> bool:
    """Handle the job's next pending target; False when there is none left."""
    async with write(platform) as uow:
        session = uow.session
        job = await session.get(BulkDeletion, job_id, with_for_update=True)
        if job is None or job.status in FINISHED:
            return False
        results = [dict(r) for r in job.results]
        pending = next((i for i, r in enumerate(results) if r["status"] == "pending"), None)
        if job.started_at is None:
            job.started_at = utcnow()
        job.status = "processing"
        if pending is None:
            job.status, job.completed_at = "completed", utcnow()
            return False
        me = Principal("user", job.owner_id, "", "")
        target = results[pending]["id"]
        try:
            # Every refusal is raised before the deletion writes anything.
            await _delete_one(uow, me, job, target)
            results[pending] = {"id": target, "status": "succeeded"}
        except ApiError as exc:
            code = (
                exc.code if exc.code in ("forbidden", "execution_history_exists") else "not_found"
            )
            results[pending] = {
                "id": target,
                "status": "failed",
                "error": _error(code, exc.message),
            }
            uow.broadcasts.clear()
        job.results = results
        return True


async def _fail(platform: Backbone, job_id: str, exc: BaseException) -> None:
    async with write(platform) as uow:
        job = await uow.session.get(BulkDeletion, job_id, with_for_update=True)
        if job is None or job.status in FINISHED:
            return
        results, first = [dict(r) for r in job.results], True
        for i, r in enumerate(results):
            if r["status"] == "pending":
                code = "delete_failed" if first else "not_attempted"
                text = f"Deletion failed: {exc}" if first else "Not attempted; safe to resubmit"
                results[i] = {"id": r["id"], "status": "failed", "error": _error(code, text)}
                first = False
        job.results, job.status, job.completed_at = results, "failed", utcnow()


async def run_job(platform: Backbone, job_id: str) -> None:
    """Work a job to its end (resuming wherever it stopped)."""
    try:
        more = True
        while more:  # one target per transaction
            more = await _step(platform, job_id)
    except asyncio.CancelledError:
        raise  # shutting down: the job stays unfinished and is resumed on the next start
    except Exception as exc:
        log.exception("bulk deletion %s failed", job_id)
        await _fail(platform, job_id, exc)
    else:
        log.info("bulk deletion %s finished", job_id)


class JobRunner:
    """Runs jobs as tasks of this node; ``resume`` picks up unfinished ones at start."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def start(self, platform: Backbone, job_id: str) -> None:
        task = asyncio.create_task(run_job(platform, job_id), name=f"bulk-deletion-{job_id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def resume(self, platform: Backbone) -> int:
        async with platform.db.read() as session:
            unfinished = list(
                await session.scalars(
                    select(BulkDeletion.id).where(BulkDeletion.status.in_(("queued", "processing")))
                )
            )
        for job_id in unfinished:
            log.info("resuming bulk deletion %s", job_id)
            self.start(platform, job_id)
        return len(unfinished)

    async def idle(self) -> None:
        """Wait until every job this node is running has finished (tests, shutdown drains)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


__all__ = ["JobRunner", "accept", "get_job", "job_view", "run_job"]
