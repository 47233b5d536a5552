"""Admin: importing a Band archive (``band import``); the logic is ``services.archive.imports``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect

from band_protocol.archive import (
    ImportBatch,
    ImportedRecord,
    ImportRecordsBody,
    ImportRunView,
    ImportStartBody,
)

from ...errors import ApiError
from ...http.deps import PlatformDep
from ...http.json_body import JsonRoute
from ...services.archive import imports
from ...services.rooms import files
from ...services.unit import write
from ..answers import one, secret, secret_answer
from ..room_files import UPLOAD, UPLOAD_REFUSALS, ContentType, FileName, FileSha256
from .access import AdminDep

router = APIRouter(route_class=JsonRoute)

SourceId = Annotated[str, Query(min_length=1, max_length=200)]
_OCTETS = "application/octet-stream"


def _view(run: Any) -> dict[str, Any]:
    return {"data": imports.run_view(run).model_dump(mode="json")}


@router.post(
    "/imports",
    status_code=201,
    responses={**one(ImportRunView, 201), **one(ImportRunView)},
)
async def start_import(
    platform: PlatformDep, admin: AdminDep, body: ImportStartBody
) -> JSONResponse:
    """Begin importing an archive (by its manifest's ``archive_id``), or find that import
    again to resume it (200): ``applied`` counts the records already in."""
    async with write(platform) as uow:
        run, created = await imports.start(uow, admin, body.archive_id, body.source, body.expected)
        answer = _view(run)
    return JSONResponse(answer, status_code=201 if created else 200)


@router.get("/imports/{import_id}", responses=one(ImportRunView))
async def get_import(platform: PlatformDep, admin: AdminDep, import_id: str) -> dict[str, Any]:
    """An import's progress: the records expected and applied, by kind."""
    async with platform.db.read() as session:
        return _view(await imports.find(session, import_id))


@router.post("/imports/{import_id}/records", responses=secret(ImportBatch))
async def import_records(
    platform: PlatformDep, admin: AdminDep, import_id: str, body: ImportRecordsBody
) -> JSONResponse:
    """Apply one batch of one kind, in archive order; all of it or none. People and agents
    made here carry their new ``api_key``, shown this once."""
    async with write(platform) as uow:
        records, applied = await imports.apply(uow, admin, import_id, body.kind, body.records)
    batch = ImportBatch(records=records, applied=applied)
    return secret_answer({"data": batch.model_dump(mode="json")})


@router.put(
    "/imports/{import_id}/files",
    responses={
        **secret(ImportedRecord),  # its schema may hold a key (never a file's): no-store
        **UPLOAD_REFUSALS,
    },
    openapi_extra=UPLOAD,
)
async def import_file(
    request: Request,
    platform: PlatformDep,
    admin: AdminDep,
    import_id: str,
    source_id: SourceId,
    room_id: SourceId,
    uploader_id: Annotated[str | None, Query(max_length=200)] = None,
    x_file_name: FileName = None,
    x_file_sha256: FileSha256 = None,
    content_type: ContentType = None,
) -> JSONResponse:
    """Store one file of the archive in its imported room (``room_id``, ``uploader_id`` and
    ``source_id`` are the archive's ids); a file already imported is not stored again."""
    meta = files.UploadMeta.parse(x_file_name, x_file_sha256, content_type)
    try:
        record = await imports.import_file(
            platform, admin, import_id, source_id, meta, room_id, uploader_id, request.stream()
        )
    except ClientDisconnect as exc:
        raise ApiError("The upload was interrupted", code="upload_interrupted") from exc
    return secret_answer({"data": record.model_dump(mode="json")})


@router.post("/imports/{import_id}/finish", responses=one(ImportRunView))
async def finish_import(platform: PlatformDep, admin: AdminDep, import_id: str) -> dict[str, Any]:
    """Mark the import finished; finishing again changes nothing."""
    async with write(platform) as uow:
        return _view(await imports.finish(uow, import_id))
