"""Admission of a socket upgrade: protocol version, API key (or a person's web session
cookie), agent id, conflict policy.

A refused upgrade is answered with a plain HTTP response carrying the error envelope (the
ASGI ``websocket.http.response`` extension), because the official client probes the upgrade
and reads that status and body: 400 and 409 end its start-up, 429 and 503 are retried, and
anything else (401 included) is treated as a transport failure and retried for minutes.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.websockets import WebSocket

from band_protocol import CLAIM_ON_PUSH_MODES, CLAIM_ON_PUSH_PARAM

from ..context import Platform
from ..errors import Unauthorized
from ..services.identity.accounts import authenticate_key
from ..services.identity.principals import Principal
from ..services.identity.web_sessions import COOKIE_NAME, signed_in
from ..store.db import Database
from ..store.outage import dependency_unavailable
from .phoenix import VSN

log = logging.getLogger("band_server.realtime")

CONFLICT_POLICIES = frozenset({"supersede", "reject"})
RETRY_AFTER_SECONDS = 5


class Denial(Exception):
    """The upgrade is refused with this HTTP status and error code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Admission:
    """Who is connecting, and how they want a conflicting connection handled."""

    principal: Principal
    reject_on_conflict: bool
    claim_on_push: str | None = None  # an agent's mode, ``CLAIM_ON_PUSH_MODES``


def api_key_of(websocket: HTTPConnection) -> str | None:
    """The key from the ``x-api-key`` header, else from the ``api_key`` query parameter."""
    return websocket.headers.get("x-api-key") or websocket.query_params.get("api_key") or None


def _same_origin(websocket: HTTPConnection) -> bool:
    """A browser's ``Origin`` must name this host: a session cookie is not enough on its own."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == websocket.headers.get("host", "").lower()


async def _principal_of(websocket: HTTPConnection, db: Database) -> Principal:
    """The key's principal; without a key, the person of a web session cookie.

    The key is checked against the database at every upgrade, not a cache: a socket may live
    for hours, and a revoked key must not open one.
    """
    key = api_key_of(websocket)
    if key:
        return await authenticate_key(db, key)
    token = websocket.cookies.get(COOKIE_NAME)
    if not token:
        return await authenticate_key(db, None)
    if not _same_origin(websocket):
        raise Unauthorized("Cross-site socket with a session cookie", code="bad_origin")
    async with db.read() as session:
        me = await signed_in(session, token)
    if me is None:
        raise Unauthorized("The web session expired; sign in again")
    return me.person


async def admit(websocket: HTTPConnection, platform: Platform) -> Admission:
    """Check the upgrade request; raise :class:`Denial` when it must be refused.

    Takes the request's view only (a ``WebSocket`` is one): admission never answers."""
    query = websocket.query_params
    vsn = query.get("vsn")
    if vsn != VSN:
        raise Denial(
            400, "unsupported_vsn", f"Only the Phoenix v2 serializer is supported (vsn={VSN})"
        )
    policy = query.get("on_conflict") or "supersede"
    if policy not in CONFLICT_POLICIES:
        raise Denial(400, "bad_request", "on_conflict must be 'supersede' or 'reject'")
    claim_on_push = query.get(CLAIM_ON_PUSH_PARAM) or None
    if claim_on_push is not None and claim_on_push not in CLAIM_ON_PUSH_MODES:
        raise Denial(400, "bad_request", f"{CLAIM_ON_PUSH_PARAM} must be 'claim' or 'working'")
    try:
        principal = await _principal_of(websocket, platform.db)
    except Unauthorized as exc:
        raise Denial(401, exc.code, exc.message) from None
    except Exception as exc:
        if dependency_unavailable(exc):
            log.warning("socket upgrade: the database is out of reach (%r)", exc)
        else:
            log.exception("socket upgrade: key check failed")
        raise Denial(503, "unavailable", "The platform can't check keys right now") from None
    agent_id = query.get("agent_id")
    if agent_id is not None and (not principal.is_agent or agent_id != principal.id):
        # 400, not 403: the official client gives up on 400 instead of retrying for minutes.
        raise Denial(400, "agent_mismatch", "agent_id does not match the API key's agent")
    return Admission(
        principal,
        reject_on_conflict=policy == "reject",
        # Only an agent has deliveries to claim: a person's socket ignores it.
        claim_on_push=claim_on_push if principal.is_agent else None,
    )


def request_id_of(websocket: WebSocket) -> str:
    """The caller's ``x-request-id`` when it sent one, else a fresh id."""
    return websocket.headers.get("x-request-id") or uuid.uuid4().hex


async def deny(websocket: WebSocket, denial: Denial) -> None:
    """Refuse the upgrade with an HTTP response and the error envelope."""
    rid = request_id_of(websocket)
    body: dict[str, object] = {
        "code": denial.code,
        "message": denial.message,
        "request_id": rid,
    }
    headers = {"x-request-id": rid}
    if denial.status in (429, 503):
        body["retry_after"] = RETRY_AFTER_SECONDS
        headers["retry-after"] = str(RETRY_AFTER_SECONDS)
    log.info(
        "socket refused %d %s from %s",
        denial.status,
        denial.code,
        websocket.client.host if websocket.client else "?",
    )
    response = JSONResponse({"error": body}, status_code=denial.status, headers=headers)
    if "websocket.http.response" in (websocket.scope.get("extensions") or {}):
        await websocket.send_denial_response(response)
    else:
        # A server without the extension can only refuse with a bare 403 handshake failure.
        await websocket.close(code=1008, reason=denial.code)
