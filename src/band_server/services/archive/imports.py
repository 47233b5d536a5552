"""Importing a Band archive into this deployment, resumably: the import's journal.

``band import`` sends an archive's records in order, one kind per batch, and each file's
bytes. Every batch is one transaction that writes the rows, the journal entries saying what
each source id became (``import_map``), and the import's count of records applied: a batch
is all there or not at all. A record whose source id is in the journal already is skipped,
so an import killed at any point and run again makes nothing twice, and a finished one run
again changes nothing. Only an admin imports (the records name other people).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import utcnow
from band_protocol.archive import (
    MEMBERS,
    ArchiveRecord,
    ImportedRecord,
    ImportRunView,
    MessageRecord,
)
from band_server.errors import NotFound, ValidationFailed
from band_server.services.archive.import_rows import Outcome, Rows
from band_server.services.identity import accounts
from band_server.services.identity.principals import Principal
from band_server.services.rooms import files
from band_server.services.unit import UnitOfWork, write
from band_server.services.views import from_row
from band_server.store.models import Agent, ImportedRow, ImportRun, Room, User

if TYPE_CHECKING:
    from band_server.services.ports import Filed

__all__ = ["apply", "find", "finish", "import_file", "run_view", "start"]

# Kinds whose ids other records name (messages name only these): loaded for every batch.
REFERENCED = ("person", "agent", "room", "file", "task")


def run_view(run: ImportRun) -> ImportRunView:
    status = "finished" if run.finished_at is not None else "running"
    return from_row(ImportRunView, run, status=status)


async def start(
    uow: UnitOfWork,
    admin: Principal,
    archive_id: str,
    source: dict[str, Any],
    expected: dict[str, int],
) -> tuple[ImportRun, bool]:
    """The import of this archive: found again (resume), or begun; and whether it is new."""
    session = uow.session
    found = await session.scalar(select(ImportRun).where(ImportRun.archive_id == archive_id))
    if found is not None:
        return found, False
    run = ImportRun(
        archive_id=archive_id, created_by=admin.id, source=source, expected=expected, applied={}
    )
    session.add(run)
    await session.flush()
    return run, True


async def find(session: AsyncSession, import_id: str, *, lock: bool = False) -> ImportRun:
    statement = select(ImportRun).where(ImportRun.id == import_id)
    run = await session.scalar(statement.with_for_update() if lock else statement)
    if run is None:
        raise NotFound("Import not found")
    return run


async def _journal(session: AsyncSession, import_id: str, kinds: Sequence[str]) -> dict[str, str]:
    rows = await session.execute(
        select(ImportedRow.source_id, ImportedRow.target_id).where(
            ImportedRow.import_id == import_id, ImportedRow.kind.in_(kinds)
        )
    )
    return {source: target for source, target in rows}


def _records(kind: str, raw: list[dict[str, Any]]) -> list[ArchiveRecord]:
    model = MEMBERS[kind][1]
    out = []
    for i, item in enumerate(raw):
        try:
            out.append(model.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            pointer = "/".join(["", "records", str(i), *(str(p) for p in err["loc"])])
            raise ValidationFailed(
                f"records/{i} is not a {kind}", {pointer: [err["msg"]]}
            ) from None
    return out


async def apply(
    uow: UnitOfWork, admin: Principal, import_id: str, kind: str, raw: list[dict[str, Any]]
) -> tuple[list[ImportedRecord], dict[str, int]]:
    """Apply one batch of records of one kind; what each became, and the counts applied."""
    records = _records(kind, raw)
    session = uow.session
    run = await find(session, import_id, lock=True)
    ids = await _journal(session, run.id, REFERENCED)
    sources = [r.key() for r in records]
    done = await session.execute(
        select(ImportedRow.source_id, ImportedRow.target_id).where(
            ImportedRow.import_id == run.id,
            ImportedRow.kind == kind,
            ImportedRow.source_id.in_(sources),
        )
    )
    already = {source: target for source, target in done}
    rows = Rows(session, run.id, admin, ids)
    results: dict[int, Outcome] = {}
    fresh = [(i, r) for i, r in enumerate(records) if sources[i] not in already]
    if kind == "message":
        made = await rows.messages([r for _, r in fresh if isinstance(r, MessageRecord)])
        results.update(zip((i for i, _ in fresh), made, strict=True))
    else:
        for i, rec in fresh:
            results[i] = await getattr(rows, kind)(rec)
    await rows.flush_journal()
    uow.emit(*rows.broadcasts)
    run.applied = {**run.applied, kind: run.applied.get(kind, 0) + len(fresh)}
    out = []
    for i, source in enumerate(sources):
        got = results.get(i) or Outcome(already.get(source), False, note="imported before")
        out.append(
            ImportedRecord(
                kind=kind,
                source_id=source,
                target_id=got.target_id or None,
                created=got.created,
                api_key=got.api_key,
                note=got.note,
            )
        )
    return out, dict(run.applied)


async def import_file(
    platform: Filed,
    admin: Principal,
    import_id: str,
    source_id: str,
    meta: files.UploadMeta,
    room_source: str,
    uploader_source: str | None,
    chunks: AsyncIterable[bytes],
) -> ImportedRecord:
    """Store one archive file in its (imported) room, as its uploader; once per source id."""
    async with platform.db.read() as session:
        run = await find(session, import_id)
        ids = await _journal(session, run.id, ("person", "agent", "room", "file"))
        room = await session.get(Room, ids.get(room_source, ""))
        uploader = await _principal(session, ids.get(uploader_source or "", ""))
    if source_id in ids:
        return ImportedRecord(
            kind="file", source_id=source_id, target_id=ids[source_id], created=False
        )
    if room is None:
        raise ValidationFailed(
            "the file's room was not imported yet", {"/room_id": ["is not an imported room"]}
        )
    view, _ = await files.upload(platform, uploader or admin, room, meta, chunks)
    try:
        async with write(platform) as uow:
            run = await find(uow.session, import_id, lock=True)
            uow.session.add(
                ImportedRow(import_id=run.id, kind="file", source_id=source_id, target_id=view.id)
            )
            run.applied = {**run.applied, "file": run.applied.get("file", 0) + 1}
    except IntegrityError:  # the same file sent twice at once: the other request kept it
        pass
    return ImportedRecord(kind="file", source_id=source_id, target_id=view.id, created=True)


async def _principal(session: AsyncSession, party_id: str) -> Principal | None:
    user = await session.get(User, party_id) if party_id else None
    if user is not None:
        return accounts.user_principal(user)
    agent = await session.get(Agent, party_id) if party_id else None
    return accounts.agent_principal(agent) if agent is not None else None


async def finish(uow: UnitOfWork, import_id: str) -> ImportRun:
    """Mark the import finished (again: a no-op); its counts stay as they were."""
    run = await find(uow.session, import_id, lock=True)
    if run.finished_at is None:
        run.finished_at = utcnow()
    return run
