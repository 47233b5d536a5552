"""Log files created owner-only (0600, every rotated generation too; folders 0700)."""

from __future__ import annotations

import io
import logging
import logging.handlers
import os
from pathlib import Path

__all__ = [
    "LOG_DIR_MODE",
    "LOG_FILE_MODE",
    "OwnerOnlyCreate",
    "OwnerOnlyFileHandler",
    "OwnerOnlyRotatingFileHandler",
    "create_log_directory",
]

LOG_FILE_MODE = 0o600
LOG_DIR_MODE = 0o700


class OwnerOnlyCreate:
    """Creates a handler's file 0600 when it opens it, so every rotated generation is too.

    A file that already exists keeps its mode: it belongs to the operator.
    """

    baseFilename: str

    def _open(self) -> io.TextIOWrapper:
        try:
            fd = os.open(self.baseFilename, os.O_CREAT | os.O_EXCL | os.O_WRONLY, LOG_FILE_MODE)
        except FileExistsError:
            pass
        else:
            os.fchmod(fd, LOG_FILE_MODE)  # the umask narrows the creation mode, not fchmod
            os.close(fd)
        stream: io.TextIOWrapper = super()._open()  # type: ignore[misc]
        return stream


class OwnerOnlyFileHandler(OwnerOnlyCreate, logging.FileHandler):
    """A ``FileHandler`` whose file is created owner-only."""


class OwnerOnlyRotatingFileHandler(OwnerOnlyCreate, logging.handlers.RotatingFileHandler):
    """A ``RotatingFileHandler`` whose every generation is created owner-only."""


def create_log_directory(path: Path) -> None:
    """Create the missing folders above ``path`` one by one, each 0700; existing ones stay."""
    missing: list[Path] = []
    folder = Path(path).expanduser().resolve().parent
    while not folder.exists() and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for segment in reversed(missing):
        try:
            segment.mkdir(mode=LOG_DIR_MODE)
        except FileExistsError:
            continue
