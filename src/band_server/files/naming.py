"""Upload names: what ``x-file-name`` may say, and how a name is cleaned.

Names never touch the file system (blobs are stored by sha256), but they are shown in the
web app and sent back in ``Content-Disposition``, so they are plain single names: a path, an
empty name or a NUL is refused, other control characters are removed, the length is bounded.
"""

from __future__ import annotations

import unicodedata
from pathlib import PurePosixPath
from urllib.parse import unquote

__all__ = ["MAX_NAME_CHARS", "InvalidFileName", "clean_file_name"]

MAX_NAME_CHARS = 255


class InvalidFileName(ValueError):
    """The name can't name a file; the message says why."""


def _visible(ch: str) -> bool:
    # Cc (controls), Cf (format: bidi overrides that disguise an extension), Cs, Co, Cn.
    return not unicodedata.category(ch).startswith("C")


def clean_file_name(raw: str | None) -> str:
    """The name to record for an upload, or ``InvalidFileName``."""
    if raw is None or not raw.strip():
        raise InvalidFileName("x-file-name is required")
    try:
        name = unquote(raw, errors="strict") if "%" in raw else raw
    except UnicodeDecodeError as exc:
        raise InvalidFileName("x-file-name is not valid percent-encoded UTF-8") from exc
    if "\x00" in name:
        raise InvalidFileName("x-file-name must not contain NUL")
    name = "".join(ch for ch in name if _visible(ch)).strip()
    if "/" in name or "\\" in name:
        raise InvalidFileName("x-file-name must be a file name, not a path")
    if name in ("", ".", ".."):
        raise InvalidFileName("x-file-name must name a file")
    if len(name) > MAX_NAME_CHARS:
        suffix = PurePosixPath(name).suffix
        suffix = suffix if len(suffix) <= 16 else ""
        name = name[: MAX_NAME_CHARS - len(suffix)] + suffix
    return name
