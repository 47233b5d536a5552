"""The web app's static files (styles, scripts, the vendored Phoenix client), with the same
security headers as every page."""

from __future__ import annotations

from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from .security import secure_headers


class WebStatic(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        # Revalidate every time: files change with the code, and the ETag keeps it cheap.
        response.headers["Cache-Control"] = "no-cache"
        return secure_headers(response)


def static_files() -> WebStatic:
    return WebStatic(packages=[("band_server.web", "static")])
