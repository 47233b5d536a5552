"""The outermost HTTP layer: every request is timed and counted, an oversized JSON body or a
repeated header is refused, a failure before any answer is answered in the error envelope, and
every answer says ``X-Content-Type-Options: nosniff`` (no browser guesses HTML out of a JSON
error or a file).

Three concerns, one pure ASGI layer: as three layers, each request paid two more coroutine
frames and two more wrapped ``send`` calls per answer (docs/decisions.md, "The HTTP layers
in front of FastAPI, and the fast lane"). Each concern keeps its own module: the numbers in
``observability``, the limit in ``http.body_limit``, the repeated headers in
``http.single_headers``, the failure's answer in ``http.errors``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from types import FunctionType

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from band_server.http import body_limit
from band_server.http.admission import Admission
from band_server.http.body_limit import API_PREFIX
from band_server.http.errors import answer_failure
from band_server.http.raw_headers import index
from band_server.http.single_headers import refuse, repeated
from band_server.observability import ROUTE_TEMPLATE, Metrics, route_template
from band_server.store.group_commit import InFlight

NOSNIFF = (b"x-content-type-options", b"nosniff")


def bound_call(app: ASGIApp) -> ASGIApp:
    """What a layer calls to hand a request on to ``app``: its bound ``__call__`` when ``app``
    is an instance of a class that defines one in Python (calling the instance goes through
    its type's call slot, several hundred instructions more a layer), else ``app`` itself."""
    if isinstance(type(app).__call__, FunctionType):  # (a class's: the type's, bound)
        bound: ASGIApp = app.__call__  # type: ignore[operator]
        return bound
    return app


def with_nosniff(message: Message) -> None:
    """Add ``nosniff`` to an ``http.response.start`` message unless its answer says it."""
    headers = message.get("headers") or ()
    for name, _ in headers:  # (a loop: ``any`` would build a generator for each answer)
        if name.lower() == NOSNIFF[0]:
            return
    message["headers"] = [*headers, NOSNIFF]


class Front:
    """Pure ASGI middleware for HTTP requests (``BandApp`` hands it nothing else).

    - counts and times every request by its route template, the answers of the layers inside
      (an idempotency replay, a 413, a 503) included; ``in_flight`` counts the requests under
      way (the database's writer reads it);
    - past ``admission``'s limit of requests under way, answers 503 ``overloaded`` with
      ``Retry-After`` before anything else (``http.admission``);
    - refuses an API request that repeats a header it must send once with 400
      (``http.single_headers``), and a JSON API body over the limit with 413 before anything
      reads it (``http.body_limit``);
    - answers what fails before an answer started in the envelope: an unreachable database
      503 (not raised further), anything else 500, then raised on for the server to log;
    - marks every answer ``nosniff``.
    """

    def __init__(
        self,
        app: ASGIApp,
        metrics: Metrics,
        in_flight: InFlight,
        admission: Admission | None = None,
    ) -> None:
        self.app = app
        self._inner = bound_call(app)
        self.stats = metrics.http
        self.in_flight = in_flight
        self.admission = admission or Admission(0)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = time.perf_counter()
        answering = _Answering(send)
        answer = answering.answer  # what the layers inside call (a method: no call slot)
        in_flight = self.in_flight
        in_flight.count += 1
        try:
            admission = self.admission  # (its limit asked here: no call while under it)
            limit = admission.limit
            if limit and in_flight.count > limit and not admission.admits(scope, in_flight.count):
                await admission.refuse(scope, receive, answer)
                return
            # No name twice (indexed for the layers inside): no header repeated, for sure.
            if (
                str(scope["path"]).startswith(API_PREFIX)
                and not index(scope)
                and (twice := repeated(scope))
            ):
                await refuse(scope, receive, answer, twice)
                return
            if body_limit.needs_reading(scope):
                admitted = await body_limit.admitted(scope, receive, answer)
                if admitted is None:
                    return
                receive = admitted
            await self._inner(scope, receive, answer)
        except Exception as exc:
            if answering.status or await answer_failure(scope, receive, answer, exc):
                raise
        finally:
            in_flight.count -= 1
            elapsed = time.perf_counter() - started
            status = answering.status or 500
            route = scope.get(ROUTE_TEMPLATE) or route_template(scope)  # the lane's, as is
            self.stats.observe(scope["method"], route, status, elapsed)


class _Answering:
    """Its ``answer`` is the ``send`` the layers inside :class:`Front` are given: notes the
    answer's status and marks it ``nosniff``, then hands each message on. A plain call
    returning the inner ``send``'s awaitable, not a coroutine function: no coroutine a message
    sent."""

    __slots__ = ("send", "status")

    def __init__(self, send: Send) -> None:
        self.send = send
        self.status = 0  # no answer started yet

    def answer(self, message: Message) -> Awaitable[None]:
        if message["type"] == "http.response.start":
            self.status = int(message["status"])
            headers = message.get("headers")
            if not headers or headers[-1] is not NOSNIFF:  # (the lane's say it: no call)
                with_nosniff(message)
        return self.send(message)
