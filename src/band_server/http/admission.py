"""Admission: beyond ``max_in_flight`` requests under way, a new one is answered 503 at once.

Every request under way holds memory (its coroutine, body, session, rows) while it waits for
the database or the loop; a node that takes more work than it can finish queues it without
bound, and its memory follows the queue (issue 26's soak: ~250 requests queued at the end of a
saturated run, RSS tracking them). Past the limit a request is answered before anything reads
its body: 503 ``overloaded`` in the error envelope with ``Retry-After``, which our SDK honours
(``band.platform._http``) and band-client-rest's retry treats as any 503. The health checks and
``/metrics`` are always admitted, so a balancer and a scraper still see the node.

``BAND_MAX_IN_FLIGHT`` sets the limit (0: none); the default is far above what a node serving
its load keeps under way (a few to a few dozen), and below what makes its memory grow.
"""

from __future__ import annotations

import logging
import time

from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from band_server.http.errors import error_response

log = logging.getLogger("band_server.api")

RETRY_AFTER_SECONDS = 1
ALWAYS_ADMITTED = ("/healthz", "/health", "/metrics")
LOG_EVERY = 5.0  # seconds between two log lines about refused requests


class Admission:
    """Decides, per request, whether the node takes it (``limit`` 0: always)."""

    __slots__ = ("_logged_at", "_since_log", "limit", "refused")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.refused = 0
        self._logged_at = 0.0
        self._since_log = 0

    def admits(self, scope: Scope, under_way: int) -> bool:
        """Whether a request is taken while ``under_way`` (itself included) are."""
        if not self.limit or under_way <= self.limit:
            return True
        return str(scope["path"]) in ALWAYS_ADMITTED

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        """503 ``overloaded`` in the envelope, with ``Retry-After``; one log line per
        ``LOG_EVERY`` seconds however many are refused."""
        self.refused += 1
        self._since_log += 1
        now = time.monotonic()
        if now - self._logged_at >= LOG_EVERY:
            log.warning(
                "overloaded: %d requests refused (over %d under way)", self._since_log, self.limit
            )
            self._logged_at, self._since_log = now, 0
        answer = error_response(
            Request(scope),
            503,
            "overloaded",
            f"The node has {self.limit} requests under way; retry after Retry-After seconds",
            headers={"retry-after": str(RETRY_AFTER_SECONDS)},
        )
        await answer(scope, receive, send)
