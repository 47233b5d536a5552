"""Admission: beyond ``max_in_flight`` requests under way, a new one is answered 503 at once.

How it works: docs/internals/server.md, "Admission".

``BAND_MAX_IN_FLIGHT`` sets the limit (0: none); health checks and ``/metrics`` always pass.
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
