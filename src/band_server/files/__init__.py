"""Room file storage: bytes behind a small interface (the data folder by default)."""

from .store import FileMissing, FileStore, FileTooLarge, LocalFileStore, StagedFile

__all__ = ["FileMissing", "FileStore", "FileTooLarge", "LocalFileStore", "StagedFile"]
