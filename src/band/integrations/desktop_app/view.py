"""The live room view Claude Desktop mounts: one self-contained HTML document.

The MCP Apps sandbox blocks every external origin, so the markup, styles and script (kept as
real files under ``assets/``) are inlined into one document when it is read. Its URI carries
a fingerprint of the content, since Desktop caches the resource by URI.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib.resources import files

__all__ = ["ASSETS", "room_view_fingerprint", "room_view_html"]

ASSETS = "band.integrations.desktop_app.assets"
STYLE_SLOT = "/*@room-view.css@*/"
SCRIPT_SLOT = "/*@room-view.js@*/"


@cache
def room_view_html() -> str:
    """The room view with its stylesheet and script inlined."""
    assets = files(ASSETS)
    page = (assets / "room-view.html").read_text(encoding="utf-8")
    style = (assets / "room-view.css").read_text(encoding="utf-8")
    script = (assets / "room-view.js").read_text(encoding="utf-8")
    return page.replace(STYLE_SLOT, style).replace(SCRIPT_SLOT, script)


@cache
def room_view_fingerprint() -> str:
    """The first 12 hex digits of the document's sha256."""
    return hashlib.sha256(room_view_html().encode()).hexdigest()[:12]
