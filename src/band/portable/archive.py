"""The Band archive: a versioned, checksummed, portable copy of what a platform let us read.

How it works: docs/internals/sdk.md, "The Band archive".

A directory, or the same tree in one ``.tar`` / ``.tar.gz`` file.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ValidationError

from band.protocol import iso, utcnow
from band_protocol.archive import KINDS, MEMBERS, ArchiveRecord, MessageRecord

__all__ = [
    "FORMAT",
    "VERSION",
    "ArchiveError",
    "ArchiveReader",
    "ArchiveWriter",
    "Manifest",
    "canonical",
    "plain",
]

FORMAT = "band-archive"
VERSION = 1
MANIFEST = "manifest.json"
TAR_SUFFIXES = (".tar", ".tar.gz", ".tgz")


class ArchiveError(Exception):
    """The archive can't be read as it is: names the member and, when known, the line."""

    def __init__(self, member: str, reason: str, line: int | None = None) -> None:
        where = f"{member} line {line}" if line is not None else member
        super().__init__(f"{where}: {reason}")
        self.member, self.line, self.reason = member, line, reason


class MemberInfo(BaseModel):
    sha256: str
    lines: int
    bytes: int


class Manifest(BaseModel):
    """``manifest.json``: what the archive holds and how to check it."""

    format: Literal["band-archive"]
    version: int
    archive_id: str
    created_at: str
    source: dict[str, Any] = {}
    members: dict[str, MemberInfo]
    files: dict[str, int] = {}  # sha256 -> size


def plain(item: Any) -> dict[str, Any]:
    """A REST answer's model (or mapping) as a plain JSON dict: what a record is made of."""
    if isinstance(item, BaseModel):
        return item.model_dump(mode="json")
    return dict(item)


def canonical(data: dict[str, Any]) -> bytes:
    """The bytes a record's digest is taken over: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def is_tar(path: Path) -> bool:
    return path.name.endswith(TAR_SUFFIXES)


@dataclass
class _Member:
    handle: IO[bytes]
    digest: Any = field(default_factory=hashlib.sha256)
    lines: int = 0
    size: int = 0


class ArchiveWriter:
    """Writes an archive: ``add`` records, ``add_file`` bytes, then ``close``.

    It is built in ``<path>.partial`` and moved into place by ``close``, so a path that
    exists is always a whole archive.
    """

    def __init__(self, path: Path, *, source: dict[str, Any]) -> None:
        self.path = path
        self.stage = path.with_name(path.name + ".partial")
        if self.stage.exists():
            shutil.rmtree(self.stage)
        (self.stage / "files").mkdir(parents=True)
        self.source = source
        self.counts: dict[str, int] = dict.fromkeys(KINDS, 0)
        self._files: dict[str, int] = {}
        self._members = {
            kind: _Member((self.stage / name).open("wb")) for kind, (name, _) in MEMBERS.items()
        }

    def add(self, kind: str, record: ArchiveRecord | dict[str, Any]) -> None:
        """Append one record of ``kind`` (validated as that kind)."""
        model = MEMBERS[kind][1]
        checked = record if isinstance(record, model) else model.model_validate(record)
        data = checked.model_dump(mode="json")
        line = json.dumps(
            {"sha256": hashlib.sha256(canonical(data)).hexdigest(), "data": data},
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode()
        member = self._members[kind]
        member.handle.write(line + b"\n")
        member.digest.update(line + b"\n")
        member.lines += 1
        member.size += len(line) + 1
        self.counts[kind] += 1

    def has_file(self, sha256: str) -> bool:
        return sha256 in self._files

    def add_file(self, sha256: str, content: bytes) -> None:
        """Keep a file's bytes once; refuses bytes that do not match ``sha256``."""
        if hashlib.sha256(content).hexdigest() != sha256:
            raise ValueError(f"file {sha256}: the bytes read do not match their sha256")
        if sha256 not in self._files:
            (self.stage / "files" / sha256).write_bytes(content)
            self._files[sha256] = len(content)

    def close(self) -> Manifest:
        """Write the manifest and put the archive at ``path``; returns the manifest."""
        for member in self._members.values():
            member.handle.close()
        manifest = Manifest(
            format=FORMAT,
            version=VERSION,
            archive_id=str(uuid.uuid4()),
            created_at=iso(utcnow()),
            source=self.source,
            members={
                MEMBERS[kind][0]: MemberInfo(
                    sha256=m.digest.hexdigest(), lines=m.lines, bytes=m.size
                )
                for kind, m in self._members.items()
            },
            files=dict(sorted(self._files.items())),
        )
        (self.stage / MANIFEST).write_text(manifest.model_dump_json(indent=2) + "\n")
        if self.path.exists():
            if self.path.is_dir():
                shutil.rmtree(self.path)
            else:
                self.path.unlink()
        if is_tar(self.path):
            mode: Literal["w", "w:gz"] = "w" if self.path.name.endswith(".tar") else "w:gz"
            partial = self.path.with_name(self.path.name + ".tmp")
            with tarfile.open(partial, mode) as tar:
                tar.add(self.stage / MANIFEST, MANIFEST)
                for name, _ in MEMBERS.values():
                    tar.add(self.stage / name, name)
                for sha in manifest.files:
                    tar.add(self.stage / "files" / sha, f"files/{sha}")
            partial.replace(self.path)
            shutil.rmtree(self.stage)
        else:
            self.stage.replace(self.path)
        return manifest

    def abort(self) -> None:
        for member in self._members.values():
            member.handle.close()
        shutil.rmtree(self.stage, ignore_errors=True)


Progress = Callable[[str, int], None]


class ArchiveReader:
    """Reads an archive (directory or tar). ``verify`` checks all of it before any use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tar: tarfile.TarFile | None = None
        if not path.exists():
            raise ArchiveError(str(path), "no such file or directory")
        if path.is_file():
            try:
                self._tar = tarfile.open(path, "r:*")  # noqa: SIM115 - closed by close()
            except (tarfile.TarError, OSError) as exc:
                raise ArchiveError(path.name, f"not a Band archive (tar: {exc})") from None
        self.manifest = self._manifest()

    def close(self) -> None:
        if self._tar is not None:
            self._tar.close()

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- members ---------------------------------------------------------------------------

    def _open(self, name: str) -> IO[bytes] | None:
        if self._tar is None:
            target = self.path / name
            return target.open("rb") if target.is_file() else None
        try:
            return self._tar.extractfile(name)
        except KeyError:
            return None

    def _manifest(self) -> Manifest:
        handle = self._open(MANIFEST)
        if handle is None:
            raise ArchiveError(MANIFEST, "missing: not a Band archive")
        with handle:
            raw = handle.read()
        try:
            data = json.loads(raw)
        except ValueError as exc:
            raise ArchiveError(MANIFEST, f"not JSON ({exc})") from None
        if isinstance(data, dict) and data.get("format") == FORMAT:
            version = data.get("version")
            if isinstance(version, int) and version > VERSION:
                raise ArchiveError(
                    MANIFEST, f"archive version {version} is newer than this band reads ({VERSION})"
                )
        try:
            return Manifest.model_validate(data)
        except ValidationError as exc:
            raise ArchiveError(MANIFEST, _first_error(exc)) from None

    def _lines(self, kind: str) -> Iterator[tuple[int, bytes]]:
        name = MEMBERS[kind][0]
        handle = self._open(name)
        if handle is None:
            if name in self.manifest.members:
                raise ArchiveError(name, "missing, though the manifest lists it")
            return
        with handle:
            yield from enumerate(handle, start=1)

    def records(self, kind: str) -> Iterator[tuple[int, ArchiveRecord]]:
        """``(line number, record)`` of a member, each line checked (digest, schema)."""
        name, model = MEMBERS[kind]
        for number, raw in self._lines(kind):
            yield number, _parse_line(name, number, raw, model)

    def file_bytes(self, sha256: str) -> bytes:
        handle = self._open(f"files/{sha256}")
        if handle is None:
            raise ArchiveError(f"files/{sha256}", "missing")
        with handle:
            return handle.read()

    # -- the whole check -------------------------------------------------------------------

    def verify(self, progress: Progress | None = None) -> dict[str, int]:
        """Check every line, every digest and every reference; the count of each kind.

        Raises ``ArchiveError`` naming the first member and line that is wrong.
        """
        known: dict[str, set[str]] = {kind: set() for kind in KINDS}
        seqs: dict[str, set[int]] = {}
        for kind in KINDS:
            name = MEMBERS[kind][0]
            expected = self.manifest.members.get(name)
            digest, lines = hashlib.sha256(), 0
            for number, raw in self._lines(kind):
                digest.update(raw)
                lines = number
                record = _parse_line(name, number, raw, MEMBERS[kind][1])
                _check_refs(name, number, kind, record, known, seqs)
                known[kind].add(record.key())
                if progress is not None:
                    progress(kind, 1)
            if expected is None:
                if lines:
                    raise ArchiveError(name, "not listed in the manifest")
                continue
            if lines != expected.lines:
                raise ArchiveError(
                    name, f"{lines} lines, the manifest says {expected.lines} (cut short?)"
                )
            if digest.hexdigest() != expected.sha256:
                raise ArchiveError(name, "sha256 does not match the manifest")
        for record_sha, size in self.manifest.files.items():
            content = self.file_bytes(record_sha)
            if len(content) != size or hashlib.sha256(content).hexdigest() != record_sha:
                raise ArchiveError(f"files/{record_sha}", "bytes do not match their sha256")
        return {kind: len(ids) for kind, ids in known.items()}


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = "/".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}" if where else str(err["msg"])


def _parse_line(name: str, number: int, raw: bytes, model: type[ArchiveRecord]) -> ArchiveRecord:
    try:
        line = json.loads(raw)
    except ValueError as exc:
        raise ArchiveError(name, f"not JSON ({exc})", number) from None
    if not isinstance(line, dict) or not isinstance(line.get("data"), dict):
        raise ArchiveError(name, 'not a record ({"sha256": ..., "data": {...}})', number)
    data = line["data"]
    if hashlib.sha256(canonical(data)).hexdigest() != line.get("sha256"):
        raise ArchiveError(
            name, "the record does not match its sha256 (altered or damaged)", number
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ArchiveError(name, _first_error(exc), number) from None


def _check_refs(
    name: str,
    number: int,
    kind: str,
    record: ArchiveRecord,
    known: dict[str, set[str]],
    seqs: dict[str, set[int]],
) -> None:
    if record.key() in known[kind]:
        raise ArchiveError(name, f"{kind} {record.key()} appears twice", number)
    for role, ident in record.source_ids().items():
        pool = known["room"] if role == "room" else known["person"] | known["agent"]
        if ident not in pool:
            raise ArchiveError(name, f"refers to {role} {ident}, which the archive lacks", number)
    if isinstance(record, MessageRecord):
        taken = seqs.setdefault(record.chat_room_id, set())
        if record.seq in taken:
            raise ArchiveError(name, f"seq {record.seq} is used twice in its room", number)
        taken.add(record.seq)
        for attachment in record.attachments:
            if attachment.get("id") not in known["file"]:
                raise ArchiveError(name, "an attachment is not a file of the archive", number)
