"""A dependency that can't be reached (the database stopped, its connections cut, its pool
exhausted) is answered 503 with the error envelope and ``Retry-After``: never a 500, and never
a hang (connects to PostgreSQL time out, see ``store.db``).

Errors raised inside a route reach :func:`~band_server.api.errors.database_error_response`
or the catch-all handler; errors raised before any route runs (the API key check in the
idempotency middleware or the fast lane) reach :func:`answer_failure`, called by the outermost
HTTP layer (``api.front.Front``), outside our other layers and FastAPI's. All of them ask
:func:`~band_server.store.outage.dependency_unavailable`.
"""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from ..store.outage import dependency_unavailable

log = logging.getLogger("band_server.api")

RETRY_AFTER_SECONDS = 5


def unavailable_response(request: Request, exc: BaseException) -> JSONResponse:
    """503 in the envelope, with ``Retry-After``."""
    from .errors import error_response

    log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
    return error_response(
        request,
        503,
        "unavailable",
        "The platform can't reach its database right now; retry shortly",
        headers={"retry-after": str(RETRY_AFTER_SECONDS)},
    )


async def answer_failure(scope: Scope, receive: Receive, send: Send, exc: Exception) -> bool:
    """Answer ``exc``, raised before any answer started, in the envelope; whether it is to be
    raised on.

    An unreachable database becomes 503 (and is not raised further: nothing is broken); any
    other error 500 ``internal_error``, then raised on for the server to log, as Starlette's
    error middleware does inside FastAPI's stack (which sits inside ours).
    """
    if dependency_unavailable(exc):
        await unavailable_response(Request(scope), exc)(scope, receive, send)
        return False
    from .errors import unexpected_response  # here: .errors imports this module

    await unexpected_response(Request(scope), exc)(scope, receive, send)
    return True
