"""``Idempotency-Key`` on every POST (Stripe semantics), as a pure ASGI middleware.

How it works: docs/internals/server.md, "Idempotency-Key on every POST".

Kept answers are sealed with the client's key; a speech post's key rides on its message.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from starlette.datastructures import Headers, State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from band_protocol import utcnow
from band_server.errors import ApiError
from band_server.http.body_limit import replay
from band_server.http.errors import error_response
from band_server.http.front import bound_call
from band_server.http.json_body import decode
from band_server.http.raw_headers import header
from band_server.services.idempotency import records, row_keys
from band_server.store.db import Database

if TYPE_CHECKING:
    from band_server.context import Platform

log = logging.getLogger("band_server.api")

HEADER = "idempotency-key"
_HEADER = HEADER.encode()
MAX_KEY = 200
# A replay may hold a secret shown once (a new API key): no cache keeps it.
REPLAY_HEADERS = {"Idempotent-Replayed": "true", "Cache-Control": "no-store"}
_CLAIMS_IN_UNIT = "__band_claims_in_unit__"
_NAMED = re.compile(r"\(\?P<\w+>")
NOT_JSON: Any = object()
"""The JSON value of a body that is not JSON."""
BUFFERED = "band.buffered_body"
"""``scope["state"][BUFFERED]``: (body, its JSON value or :data:`NOT_JSON`), read whole and
decoded once for the hash; the ``receive`` handed on replays that body. The fast lane takes
both from here instead of reading and decoding the same bytes again."""
_Endpoint = TypeVar("_Endpoint", bound=Callable[..., Any])


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode
"""``json.dumps(value, sort_keys=True, separators=(",", ":"))``, without an encoder per call."""


def body_hash(scope: Scope, body: bytes) -> str:
    """Hash the query and the body; JSON is canonicalised so key order does not matter."""
    return _hashed(scope, body)[0]


def _hashed(scope: Scope, body: bytes) -> tuple[str, Any]:
    """:func:`body_hash`, and the body's JSON value (:data:`NOT_JSON` if it is not JSON)."""
    value: Any = NOT_JSON
    try:
        value = decode(body)  # as the route will (http.json_body): refused alike
        canonical = _CANONICAL(value).encode()
    except ValueError:
        canonical = body
    query: bytes = scope.get("query_string", b"")
    return hashlib.sha256(query + b"\n" + canonical).hexdigest(), value


async def read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def claims_in_its_unit(endpoint: _Endpoint) -> _Endpoint:
    """Mark a POST endpoint whose work, side effects included, is one unit of work that keeps
    its answer (``uow.keep_answer``), with nothing changed before that unit.

    A keyed request to it is not looked up first: the unit's insert of the key's record finds
    a used key (and rolls the work back), and only then is the record read (see
    ``IdempotencyMiddleware``). The agent's posts of a turn, each keyed by our SDK, take this
    path."""
    setattr(endpoint, _CLAIMS_IN_UNIT, True)
    return endpoint


def claimed_in_unit(endpoint: Callable[..., Any]) -> bool:
    return bool(getattr(endpoint, _CLAIMS_IN_UNIT, False))


class IdempotencyMiddleware:
    """Wraps the API; see the module docstring for the rules.

    ``unit_claimed``: paths (full-match patterns) of endpoints marked
    :func:`claims_in_its_unit`; every other keyed POST reads the key's record before its work.
    """

    def __init__(self, app: ASGIApp, unit_claimed: Sequence[re.Pattern[str]] = ()) -> None:
        self.app = app
        self._inner = bound_call(app)  # (no call slot a request: ``front.bound_call``)
        # One pattern for all of them: a keyed request tries one match, not one per route.
        # (Group names go: two routes may name the same path parameter.)
        either = "|".join(_NAMED.sub("(?:", f"(?:{p.pattern})") for p in unit_claimed)
        self._unit_claimed = re.compile(either) if unit_claimed else None
        self._legacy: tuple[Database, datetime] | None = None

    async def _legacy_open(self, platform: Platform) -> bool:
        """Whether a record written before migration 0010 may still hold a speech post's key
        (read once per database; nothing writes such records since)."""
        legacy = self._legacy
        if legacy is None or legacy[0] is not platform.db:
            assert self._unit_claimed is not None  # nosec B101 # narrows for mypy: set at start-up
            until = await row_keys.legacy_until(platform.db, self._unit_claimed)
            self._legacy = legacy = (platform.db, until)
        return utcnow() < legacy[1]

    def __call__(self, scope: Scope, receive: Receive, send: Send) -> Awaitable[None]:
        # A plain call: a request without a key goes on to the app with no coroutine of this
        # layer (a frame less each time the request's task resumes).
        if scope["type"] != "http" or scope["method"] != "POST":
            return self._inner(scope, receive, send)
        key = header(scope, _HEADER)
        # A NUL in the path can't be stored (PostgreSQL); no route has one, so just pass through.
        if key is None or not (api_key := header(scope, b"x-api-key")) or "\x00" in scope["path"]:
            return self._inner(scope, receive, send)
        return self._keyed(scope, receive, send, key, api_key)

    async def _keyed(
        self, scope: Scope, receive: Receive, send: Send, key: str, api_key: str
    ) -> None:
        """A keyed POST with an API key: see the module docstring."""
        if not key.strip() or len(key) > MAX_KEY:
            pointer = {"/Idempotency-Key": [f"must be 1 to {MAX_KEY} characters"]}
            response: Response = error_response(
                Request(scope), 422, "validation_error", "Idempotency-Key is invalid", pointer
            )
            await response(scope, receive, send)
            return
        platform: Platform = State.__getattr__(scope["app"].state, "platform")  # as fast_lane
        try:
            principal = await platform.authenticate(api_key)
        except ApiError:
            await self.app(scope, receive, send)  # the route answers 401; nothing is recorded
            return
        # The route's dependency (and the fast lane) reuse it: ``request.state.principal``.
        state = scope.setdefault("state", {})
        state["principal"] = principal
        body = await read_body(receive)
        hashed, value = _hashed(scope, body)
        state[BUFFERED] = (body, value)
        fp = records.fingerprint(principal.id, key, "POST", scope["path"], hashed)
        path = scope["path"]
        if self._unit_claimed is not None and self._unit_claimed.fullmatch(path):
            # Nothing is read first: the key rides on the message the unit inserts, and its
            # unique index finds a used key. While a record from before that (migration 0010)
            # may hold a key, the record is read first.
            if await self._legacy_open(platform):
                outcome = await records.lookup(platform.db, fp)
                if not isinstance(outcome, records.Claimed):
                    await _refusal(scope, outcome)(scope, receive, send)
                    return
                if not outcome.fresh:  # an expired or abandoned record: free the key
                    await row_keys.release(platform.db, fp)
            await self._run(platform, scope, fp, None, body, receive, send)
            return
        # A read decides what to do; the claim itself is written by the request's own unit
        # of work (services.unit.write), in the same transaction as the work.
        outcome = await records.lookup(platform.db, fp)
        if isinstance(outcome, records.Claimed):
            await self._run(platform, scope, fp, outcome, body, receive, send)
            return
        await _refusal(scope, outcome)(scope, receive, send)

    async def _run(
        self,
        platform: Platform,
        scope: Scope,
        fp: records.Fingerprint,
        looked: records.Claimed | None,
        body: bytes,
        receive: Receive,
        send: Send,
        *,
        again: bool = False,
    ) -> None:
        """Do the work with the buffered body, keep a 2xx JSON answer, then send it.

        ``looked``: what the read before the work found; None when nothing was read (an
        endpoint marked :func:`claims_in_its_unit`: the key rides on its message).
        ``again``: this is the post once more after an expired key was freed."""
        receive_again = replay(body, receive)
        messages: list[Message] = []
        through = False

        async def capture(message: Message) -> None:
            nonlocal through
            # An answer its unit of work kept with the work goes out as it comes.
            if through or (message["type"] == "http.response.start" and pending.kept):
                through = True
                await send(message)
                return
            messages.append(message)

        fresh = looked is None or looked.fresh
        pending, token = records.open_claim(fp, fresh=fresh, on_row=looked is None)
        try:
            await self.app(scope, receive_again, capture)
        except BaseException:
            if pending.claimed and not pending.kept:
                await self._settle(platform, fp, None, claimed=True)
            raise
        finally:
            records.close_claim(token)
        if through:
            return
        start = next((m for m in messages if m["type"] == "http.response.start"), None)
        answer = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        keep = _keepable(start, answer)
        if looked is None and not pending.kept and (pending.taken or keep is None):
            # The key was not read first. Its unit found it taken, or the request failed
            # before its unit kept an answer (another body with a used key, say): what holds
            # the key decides, as the read before the work would have.
            outcome = await row_keys.lookup(platform.db, fp)
            if isinstance(outcome, records.Claimed) and pending.taken:
                if not outcome.fresh and not again:  # an expired key: free it, post again
                    await row_keys.release(platform.db, fp)
                    await self._run(platform, scope, fp, None, body, receive, send, again=True)
                    return
                outcome = records.InFlight()  # its holder has not committed yet
            if not isinstance(outcome, records.Claimed):
                await _refusal(scope, outcome)(scope, receive, send)
                return
        if pending.claimed or keep is not None:
            await self._settle(platform, fp, keep, claimed=pending.claimed)
        for message in messages:
            await send(message)

    @staticmethod
    async def _settle(
        platform: Platform, fp: records.Fingerprint, keep: tuple[int, str] | None, *, claimed: bool
    ) -> None:
        """Keep a 2xx answer (claiming first if no unit of work did), else drop the claim."""
        try:
            async with platform.db.write() as session:
                if keep is None:
                    await records.release(session, fp)
                    return
                if not claimed and not isinstance(
                    await records.claim(session, fp), records.Claimed
                ):
                    return  # a concurrent request with the key got there first
                await records.complete(session, fp, records.Answer(*keep))
        except Exception:
            # The answer still goes out; the claim expires as abandoned after a few minutes.
            log.exception("idempotency record %s could not be settled", fp.key[:12])


def _refusal(scope: Scope, outcome: records.Outcome) -> Response:
    """The answer to a keyed request whose key is not free: a replay or an error."""
    if isinstance(outcome, records.Replay):
        principal = scope["state"]["principal"]
        log.info("idempotent replay: %s %s", principal.handle, scope["path"])
        return Response(
            outcome.body,
            status_code=outcome.status_code,
            media_type="application/json",
            headers=REPLAY_HEADERS,
        )
    request = Request(scope)
    if isinstance(outcome, records.Reused):
        return error_response(
            request,
            422,
            "idempotency_key_reused",
            "This Idempotency-Key was already used for a different request",
        )
    return error_response(
        request,
        409,
        "idempotency_key_in_use",
        "A request with this Idempotency-Key is still being processed",
    )


def _keepable(start: Message | None, body: bytes) -> tuple[int, str] | None:
    """The status and body to keep (sealed): only 2xx JSON answers are replayed."""
    if start is None or not 200 <= int(start["status"]) < 300:
        return None
    headers = Headers(raw=start.get("headers", []))
    if not headers.get("content-type", "").startswith("application/json"):
        return None
    try:
        return int(start["status"]), body.decode("utf-8")
    except UnicodeDecodeError:
        return None
