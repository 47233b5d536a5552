"""``band import``: an archive into a deployment of ours, through its admin import endpoint.

The whole archive is checked first (every line, digest and reference), so a damaged one is
refused before anything is written, naming the line. Then its records go up in archive order,
one kind per batch; the platform journals each batch with the rows it makes, and says how
many records of each kind it has applied. A run that was interrupted (even ``kill -9``) starts
again after those and the journal skips anything sent twice: nothing is made twice, and a
finished import run again changes nothing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from band.client.rest import AsyncRestClient
from band_protocol.archive import KINDS, MAX_BATCH, MEMBERS, ArchiveRecord, FileRecord

from .archive import ArchiveReader, plain
from .progress import LineProgress, Progress

__all__ = ["ImportSummary", "NewKey", "import_archive"]

MAX_BATCH_BYTES = 768 * 1024  # below the platform's 1 MiB JSON body limit


@dataclass(frozen=True)
class NewKey:
    """A person or agent the import made, with its key (shown once)."""

    kind: str
    note: str
    api_key: str


@dataclass
class ImportSummary:
    import_id: str
    archive_id: str
    counts: dict[str, int]
    created: dict[str, int]
    resumed: bool
    seconds: float
    keys: list[NewKey] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _batches(
    records: Iterator[tuple[int, ArchiveRecord]], skip: int, size: int
) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    weight = 0
    for index, (_, record) in enumerate(records):
        if index < skip:
            continue
        data = record.model_dump(mode="json")
        cost = len(json.dumps(data, ensure_ascii=False).encode())
        if batch and (len(batch) >= size or weight + cost > MAX_BATCH_BYTES):
            yield batch
            batch, weight = [], 0
        batch.append(data)
        weight += cost
    if batch:
        yield batch


async def import_archive(
    client: AsyncRestClient,
    path: Path,
    *,
    batch: int = 200,
    progress: Progress | None = None,
    on_key: Callable[[NewKey], None] | None = None,
) -> ImportSummary:
    """Check ``path``, then import it through ``client`` (an admin's key); resumable."""
    began = time.monotonic()
    progress = progress or LineProgress()
    batch = max(1, min(batch, MAX_BATCH))
    api = client.admin_api_imports
    with ArchiveReader(path) as reader:
        manifest = reader.manifest
        progress.start("checking the archive", sum(m.lines for m in manifest.members.values()))
        counts = reader.verify(lambda _kind, n: progress.advance(n))
        started = plain(
            (
                await api.start_import(
                    archive_id=manifest.archive_id, source=manifest.source, expected=counts
                )
            ).data
        )
        import_id, applied = str(started["id"]), dict(started.get("applied") or {})
        summary = ImportSummary(
            import_id, manifest.archive_id, counts, {}, resumed=bool(applied), seconds=0.0
        )

        def took(answer: dict[str, Any]) -> None:
            kind = answer["kind"]
            if answer.get("created"):
                summary.created[kind] = summary.created.get(kind, 0) + 1
            if answer.get("api_key"):
                key = NewKey(kind, answer.get("note") or answer["target_id"], answer["api_key"])
                summary.keys.append(key)
                if on_key is not None:
                    on_key(key)
            elif answer.get("note") and kind in ("person", "agent", "contact"):
                summary.notes.append(f"{kind}: {answer['note']}")

        for kind in KINDS:
            done = int(applied.get(kind, 0))
            progress.start(f"importing {MEMBERS[kind][0]}", counts[kind])
            progress.advance(done)
            if kind == "file":
                for index, (_, record) in enumerate(reader.records("file")):
                    if index < done or not isinstance(record, FileRecord):
                        continue
                    sent = await api.import_file(
                        import_id,
                        content=reader.file_bytes(record.sha256),
                        source_id=record.id,
                        room_id=record.room_id,
                        name=record.name,
                        sha256=record.sha256,
                        content_type=record.content_type,
                        uploader_id=record.uploader_id,
                    )
                    took(plain(sent.data))
                    progress.advance()
                continue
            for chunk in _batches(reader.records(kind), done, batch):
                answer = plain((await api.import_records(import_id, kind=kind, records=chunk)).data)
                for item in answer["records"]:
                    took(item)
                progress.advance(len(chunk))
        await api.finish_import(import_id)
    progress.finish()
    summary.seconds = time.monotonic() - began
    return summary
