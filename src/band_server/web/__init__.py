"""The web app for people: Jinja2 pages, plain forms, and a live room over the Phoenix client."""

from __future__ import annotations

from .routes import router
from .static_files import static_files

__all__ = ["router", "static_files"]
