"""``band backup`` / ``band restore``: one deployment, whole, consistent while it runs.

How it works: docs/internals/server.md, "Backup and restore".
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess  # nosec B404 # runs pg_dump / pg_restore, nothing from a request
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import make_url

from .config import Settings

__all__ = ["BackupError", "Summary", "backup", "restore"]

FORMAT = "band-backup"
VERSION = 1
Say = Callable[[str], None]


class BackupError(Exception):
    """A backup or restore that can't be done as asked (the message says why)."""


@dataclass
class Summary:
    path: Path
    database: str
    files: int
    bytes: int


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _postgres_url(settings: Settings) -> str | None:
    url = settings.database_url
    if not url or url.startswith("sqlite"):
        return None
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _run(argv: list[str], what: str) -> None:
    try:
        # argv: pg_dump / pg_restore with the operator's URL and paths, and no shell.
        done = subprocess.run(argv, capture_output=True, text=True, check=False)  # nosec B603
    except FileNotFoundError:
        raise BackupError(f"{argv[0]} is not installed: it is needed to {what}") from None
    if done.returncode != 0:
        raise BackupError(f"{argv[0]} failed: {done.stderr.strip()[-500:]}")


def _sqlite_copy(source: Path, target: Path) -> None:
    """A consistent copy of a live SQLite database (the online backup API, in one step)."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst, pages=-1)
        dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it
    finally:
        dst.close()
        src.close()


def _file_hashes(db: Path) -> list[str]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [row[0] for row in conn.execute("SELECT DISTINCT sha256 FROM room_files")]
    finally:
        conn.close()


def _copy_files(shas: list[str], source: Path, target: Path, say: Say) -> int:
    size = 0
    for n, sha in enumerate(shas, start=1):
        src = source / sha[:2] / sha
        if not src.is_file():
            raise BackupError(f"room file {sha} is missing from {source}")
        (target / sha[:2]).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target / sha[:2] / sha)
        size += src.stat().st_size
        if n % 200 == 0 or n == len(shas):
            say(f"files: {n}/{len(shas)}")
    return size


def backup(settings: Settings, dest: Path, say: Say = print) -> Summary:
    """Back up the deployment of ``settings`` into ``dest`` (a folder or a ``.tar``)."""
    if dest.exists():
        raise BackupError(f"{dest} exists already: give a new path")
    stage = Path(tempfile.mkdtemp(prefix=".band-backup-", dir=dest.parent))
    try:
        pg = _postgres_url(settings)
        if pg is not None:
            say("database: pg_dump (one snapshot)")
            db_file = stage / "database.dump"
            _run(["pg_dump", "--format=custom", f"--file={db_file}", pg], "back up PostgreSQL")
            # Every file stored by now: a superset of what the snapshot names (bytes are
            # stored before their row commits), and blobs never change.
            shas = _stored(settings.data_dir / "files")
        else:
            source = settings.data_dir / "band.db"
            if not source.is_file():
                raise BackupError(f"no database at {source}")
            say("database: SQLite online backup (one snapshot)")
            db_file = stage / "band.db"
            _sqlite_copy(source, db_file)
            shas = _file_hashes(db_file)
        size = _copy_files(shas, settings.data_dir / "files", stage / "files", say)
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "created_at": datetime.now(UTC).isoformat(),
            "database": "postgresql" if pg else "sqlite",
            "database_file": db_file.name,
            "sha256": _sha256(db_file),
            "files": len(shas),
            "file_bytes": size,
        }
        (stage / "backup.json").write_text(json.dumps(meta, indent=2) + "\n")
        if dest.name.endswith(".tar"):
            with tarfile.open(dest, "w") as tar:
                for item in sorted(stage.rglob("*")):
                    tar.add(item, str(item.relative_to(stage)), recursive=False)
            shutil.rmtree(stage)
        else:
            stage.rename(dest)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    total = size + (dest / db_file.name).stat().st_size if dest.is_dir() else dest.stat().st_size
    return Summary(dest, str(meta["database"]), len(shas), total)


def _stored(root: Path) -> list[str]:
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.glob("??/*") if p.is_file() and len(p.name) == 64)


def restore(settings: Settings, source: Path, *, force: bool = False, say: Say = print) -> Summary:
    """Restore a backup into the deployment of ``settings`` (its server must be stopped)."""
    with tempfile.TemporaryDirectory(prefix=".band-restore-") as scratch:
        folder = source
        if source.is_file():
            with tarfile.open(source) as tar:
                tar.extractall(scratch, filter="data")
            folder = Path(scratch)
        meta_path = folder / "backup.json"
        if not meta_path.is_file():
            raise BackupError(f"{source} is not a Band backup (no backup.json)")
        meta = json.loads(meta_path.read_text())
        if meta.get("format") != FORMAT or int(meta.get("version", 0)) > VERSION:
            raise BackupError(f"{source}: not a backup this band reads ({meta.get('version')})")
        db_file = folder / str(meta["database_file"])
        if _sha256(db_file) != meta["sha256"]:
            raise BackupError(f"{db_file.name}: sha256 does not match backup.json (damaged)")
        pg = _postgres_url(settings)
        if (pg is not None) != (meta["database"] == "postgresql"):
            raise BackupError(f"the backup holds {meta['database']}; this deployment does not")
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        if pg is not None:
            say("database: pg_restore")
            _run(
                [
                    "pg_restore",
                    "--clean",
                    "--if-exists",
                    "--no-owner",
                    f"--dbname={pg}",
                    str(db_file),
                ],
                "restore PostgreSQL",
            )
        else:
            target = settings.data_dir / "band.db"
            if target.exists() and not force:
                raise BackupError(f"{target} exists: restore into an empty data folder, or --force")
            for stale in (target, Path(f"{target}-wal"), Path(f"{target}-shm")):
                stale.unlink(missing_ok=True)
            say("database: copying the snapshot")
            _sqlite_copy(db_file, target)
            conn = sqlite3.connect(target)
            try:
                verdict = conn.execute("PRAGMA integrity_check").fetchone()[0]
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            if verdict != "ok":
                raise BackupError(f"the restored database fails its integrity check: {verdict}")
        shas = _stored(folder / "files")
        size = _copy_files(shas, folder / "files", settings.data_dir / "files", say)
    return Summary(settings.data_dir, str(meta["database"]), len(shas), size)
