"""Pages from Jinja2 templates, autoescaped: no value reaches the HTML unescaped."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.responses import HTMLResponse, Response

from ..services.identity.web_sessions import SignedIn
from .security import secure_headers

PHOENIX_VERSION = "1.8.16"
"""The vendored npm package ``phoenix`` (``static/vendor/phoenix-<version>/``)."""
VENDORED = {
    "phoenix": PHOENIX_VERSION,
    "markdown-it": "15.0.3",
    "markdown-it-task-lists": "2.1.1",
    "highlight.js": "11.12.0",
    "dompurify": "3.5.0",
}
"""Every vendored browser library and its version (``static/vendor/<name>-<version>/``, put
there by ``scripts/vendor-phoenix`` and ``scripts/vendor-markdown``)."""


def vendored(name: str, file: str) -> str:
    """The address of a vendored library's file."""
    return f"/static/vendor/{name}-{VENDORED[name]}/{file}"


_env = Environment(
    loader=PackageLoader("band_server.web", "templates"),
    autoescape=select_autoescape(default=True, default_for_string=True),
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _when(moment: datetime | None) -> str:
    """A short absolute time for people (the script turns it into "5 min ago")."""
    if moment is None:
        return ""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.strftime("%Y-%m-%d %H:%M UTC")


def _iso(moment: datetime | None) -> str:
    if moment is None:
        return ""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.isoformat()


_env.filters["when"] = _when
_env.filters["iso"] = _iso
_env.globals["section"] = ""  # which sidebar entry is current
_env.globals["phoenix_js"] = vendored("phoenix", "phoenix.js")
_env.globals["vendored"] = vendored


def render(template: str, me: SignedIn | None, **context: Any) -> str:
    """The template's HTML, with the signed-in person (or None) as ``me``."""
    return _env.get_template(template).render(me=me, **context)


def page(template: str, me: SignedIn | None, *, status: int = 200, **context: Any) -> Response:
    """An HTML response with the security headers."""
    return secure_headers(HTMLResponse(render(template, me, **context), status_code=status))
