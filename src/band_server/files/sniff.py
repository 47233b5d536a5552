"""A stored file's media type, judged from its first bytes rather than from the uploader."""

from __future__ import annotations

import re

import filetype

__all__ = ["TEXT_LIKE", "content_type_of"]

# Declared types kept for bytes that are text (plain text can't be told apart from bytes).
TEXT_LIKE = frozenset(
    {"application/json", "application/xml", "application/yaml", "application/x-yaml"}
)
OCTET_STREAM = "application/octet-stream"
_MEDIA_TYPE = re.compile(r"[a-z0-9][a-z0-9!#$&^_.+-]{0,62}/[a-z0-9][a-z0-9!#$&^_.+-]{0,62}")


def _is_text(head: bytes, complete: bool) -> bool:
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the sniffed head is still text.
        if complete or exc.start < len(head) - 3:
            return False
    return True


def content_type_of(head: bytes, declared: str | None, *, complete: bool) -> str:
    """A known binary signature wins; UTF-8 text keeps a declared text type, else
    ``text/plain``; anything else is ``application/octet-stream``.

    ``complete`` says whether ``head`` is the whole file.
    """
    guessed = filetype.guess_mime(head)
    if isinstance(guessed, str) and guessed:
        return guessed
    if not _is_text(head, complete):
        return OCTET_STREAM
    base = (declared or "").split(";", 1)[0].strip().lower()
    if _MEDIA_TYPE.fullmatch(base) and (base.startswith("text/") or base in TEXT_LIKE):
        return base
    return "text/plain"
