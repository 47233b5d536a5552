"""How a stored file is handed to a browser: never rendered as a page of ours.

Every download says ``nosniff`` (the stored type, which ``files.sniff`` judged from the bytes,
is the only type a browser may use) and carries a CSP sandbox (opened anyway, a file runs no
script and reaches no cookie). Images of the types every browser decodes and none executes are
shown inline; everything else (HTML and SVG included) is an attachment, saved, not opened.
"""

from __future__ import annotations

from urllib.parse import quote

__all__ = ["INLINE_TYPES", "download_headers"]

INLINE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
FILE_POLICY = "default-src 'none'; img-src 'self'; sandbox"


def disposition(name: str, content_type: str) -> str:
    """``inline`` for a safe image, else ``attachment``; the name as ASCII and as UTF-8."""
    kind = "inline" if content_type in INLINE_TYPES else "attachment"
    ascii_name = name.encode("ascii", "replace").decode().replace('"', "'").replace("?", "_")
    return f"{kind}; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(name, safe='')}"


def download_headers(name: str, content_type: str) -> dict[str, str]:
    """The headers of every file download, on the API and in the web app."""
    return {
        "Content-Disposition": disposition(name, content_type),
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": FILE_POLICY,
    }
