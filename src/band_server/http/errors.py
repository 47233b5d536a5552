"""Turn every failure into the error envelope; bad input never becomes a 500.

A dependency that can't be reached (the database stopped, its connections cut, its pool
exhausted) is answered 503 with ``Retry-After``: never a 500, and never a hang. Errors raised
inside a route reach the handlers :func:`install` registers; errors raised before any route
runs (the API key check in the idempotency middleware or the fast lane) reach
:func:`answer_failure`, called by the outermost HTTP layer (``http.front.Front``).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import Receive, Scope, Send

from band_server.errors import ApiError
from band_server.store.outage import dependency_unavailable

log = logging.getLogger("band_server.api")

RETRY_AFTER_SECONDS = 5

_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_error",
    429: "rate_limited",
}


def request_id(request: Request) -> str:
    rid: str | None = getattr(request.state, "request_id", None)
    if rid is None:
        rid = request.headers.get("x-request-id") or uuid.uuid4().hex
        request.state.request_id = rid
    return rid


def error_response(
    request: Request,
    status: int,
    code: str,
    message: str,
    details: dict[str, Any] | None = None,
    headers: dict[str, str] | None = None,
) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message, "request_id": request_id(request)}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def _pointer(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return "/" + "/".join(parts) if parts else "/"


def database_error_kind(exc: DBAPIError) -> str | None:
    """``"conflict"`` for integrity errors, ``"invalid"`` for refused values, else ``None``."""
    # SQLSTATE class 23 is an integrity violation, class 22 a data exception; drivers that
    # don't say (SQLite) are judged by SQLAlchemy's exception class alone.
    state = str(getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None) or "")
    if isinstance(exc, IntegrityError) or state.startswith("23"):
        return "conflict"
    if isinstance(exc, DataError) or state.startswith("22"):
        return "invalid"
    return None


def api_error_response(request: Request, exc: ApiError) -> JSONResponse:
    """The envelope of a domain error raised by a service."""
    return error_response(request, exc.status_code, exc.code, exc.message, exc.details, exc.headers)


def database_error_response(request: Request, exc: DBAPIError) -> JSONResponse:
    """The envelope of a database refusal: 409, 422, 503 (unreachable), or (our fault) 500."""
    # The transaction rolled back, so nothing changed. A unique constraint that lost a race
    # with a concurrent request is a conflict; a value the database refuses (a NUL
    # character on PostgreSQL) is bad input. Anything else is our fault.
    kind = database_error_kind(exc)
    if kind == "conflict":
        log.info("conflict on %s %s: %s", request.method, request.url.path, exc.orig)
        return error_response(
            request, 409, "conflict", "The request conflicts with a concurrent change"
        )
    if kind == "invalid":
        log.info("refused value on %s %s: %s", request.method, request.url.path, exc.orig)
        return error_response(
            request, 422, "validation_error", "A value is not accepted by the database", {}
        )
    if dependency_unavailable(exc):
        return unavailable_response(request, exc)
    log.exception("database error on %s %s", request.method, request.url.path)
    return error_response(request, 500, "internal_error", "Internal server error")


def unexpected_response(request: Request, exc: Exception) -> JSONResponse:
    """The envelope of any other error: 503 when the database is out of reach, else 500."""
    if dependency_unavailable(exc):
        return unavailable_response(request, exc)
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(request, 500, "internal_error", "Internal server error")


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return api_error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        details: dict[str, list[str]] = {}
        for err in exc.errors():
            loc = tuple(err.get("loc", ()))
            if err.get("type") == "json_invalid":
                reason = err.get("ctx", {}).get("error")
                message = "Request body is not valid JSON" + (f": {reason}" if reason else "")
                return error_response(request, 400, "malformed_json", message)
            if loc == ("body",) and isinstance(err.get("input"), bytes):
                # FastAPI reads a body as JSON only under a JSON Content-Type (http.json_body)
                details["/"] = ["must be JSON, sent with Content-Type: application/json"]
                continue
            details.setdefault(_pointer(loc), []).append(str(err.get("msg", "is invalid")))
        first = next(iter(details.items()), ("/", ["is invalid"]))
        message = f"{first[0]}: {first[1][0]}"
        return error_response(request, 422, "validation_error", message, details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "error")
        message = exc.detail if isinstance(exc.detail, str) else code
        if exc.status_code == 404 and message == "Not Found":
            message = "No such endpoint"
        headers = dict(exc.headers) if exc.headers else None
        return error_response(request, exc.status_code, code, message, headers=headers)

    @app.exception_handler(DBAPIError)
    async def _database(request: Request, exc: DBAPIError) -> JSONResponse:
        return database_error_response(request, exc)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        return unexpected_response(request, exc)


def unavailable_response(request: Request, exc: BaseException) -> JSONResponse:
    """503 in the envelope, with ``Retry-After``."""
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
    await unexpected_response(Request(scope), exc)(scope, receive, send)
    return True
