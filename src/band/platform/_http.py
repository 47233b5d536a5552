"""The HTTP core of the REST link: one ``httpx.AsyncClient``, envelopes, bounded retries."""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

import httpx

from band.core.exceptions import BandConnectionError
from band_protocol import tracing
from band_protocol.tracing import TRACING

from ._wire import Attempt
from ._wire_choice import make_wire
from .errors import BandRestError
from .turn_keys import (
    KEY_IN_USE,
    KEY_REUSED,
    error_code,
    settled_reuse,
    turn_post_key,
    with_turn_id,
)

__all__ = ["API_PREFIX", "HttpCore", "error_from_response"]

API_PREFIX = "/api/v1"
RETRY_STATUSES = frozenset({408, 429})
# The platform is restarting or unreachable: worth waiting out, not only retrying thrice.
OUTAGE_STATUSES = frozenset({502, 503, 504})
OUTAGE_DELAY_CAP = 5.0
# A turn key still held by a request in flight (a re-run racing its first run's post).
IN_USE_WAITS = (0.25, 0.5, 1.0, 2.0, 4.0)
Params = Mapping[str, Any] | None


def _parse_retry_after(response: httpx.Response) -> float | None:
    """Seconds the platform asked us to wait, from ``retry-after-ms`` or ``Retry-After``."""
    millis = response.headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        if parsed is None:
            return None
        return max(0.0, parsed.timestamp() - time.time())


def error_from_response(response: httpx.Response) -> BandRestError:
    """Build a ``BandRestError`` from a non-2xx answer, tolerating bodies without an envelope."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    request_id = response.headers.get("x-request-id")
    parsed = BandRestError.from_envelope(
        status, body, message=response.reason_phrase, request_id=request_id
    )
    if parsed is not None:
        return parsed
    text = response.text.strip()[:200] or response.reason_phrase
    return BandRestError(status, f"http_{status}", text, None, request_id)


def _drop_none(params: Params) -> dict[str, Any] | None:
    if params is None:
        return None
    return {key: value for key, value in params.items() if value is not None}


class HttpCore:
    """Sends requests with the agent's key, retrying 408/429/5xx and connection errors.

    Retries are bounded (``max_retries``) and each delay honours ``Retry-After`` but never
    exceeds ``max_retry_delay``. When the platform is unreachable (connection errors, 502-504)
    the client keeps trying for ``outage_window`` seconds of backoff, so a reply survives a
    server restart. Every retryable POST carries one ``Idempotency-Key`` across its retries,
    so a retried post cannot land twice on a platform that honours the key.
    ``request_count`` counts every HTTP attempt sent.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 60.0,
        max_retries: int = 3,
        max_retry_delay: float = 30.0,
        outage_window: float = 60.0,
        headers: Mapping[str, str] | None = None,
        follow_redirects: bool = False,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.outage_window = outage_window
        self.max_retry_delay = max_retry_delay
        self.request_count = 0
        self.sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        # The caller's headers on every request, over our Accept; the key always ours.
        merged = httpx.Headers({"Accept": "application/json"})
        merged.update(headers or {})
        merged["X-API-Key"] = api_key
        sent = {key.decode(): value.decode() for key, value in merged.raw}
        # The wire (aiohttp, or httpx for a given transport or a proxy) and this pool:
        # docs/decisions.md ("The HTTP client is httpx", "The REST link on aiohttp").
        limits = httpx.Limits(max_connections=32, max_keepalive_connections=16)
        self._wire = make_wire(self.base_url, sent, transport, timeout, limits, follow_redirects)

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._wire.aclose()

    @property
    def is_closed(self) -> bool:
        return self._wire.is_closed

    async def _request(self, attempt: Attempt) -> httpx.Response:
        if TRACING.on:  # a client span, its context in the request's traceparent header
            with tracing.span(tracing.route_name(attempt.method, attempt.url), kind="client"):
                headers = dict(attempt.headers)
                tracing.inject(headers)
                return await self._wire.request(replace(attempt, headers=headers))
        return await self._wire.request(attempt)

    def _delay(self, attempt: int, response: httpx.Response | None) -> float:
        hinted = _parse_retry_after(response) if response is not None else None
        if hinted is None:
            hinted = 0.5 * (2**attempt) + random.uniform(0, 0.25)  # nosec B311 # backoff jitter, not a secret
        return min(hinted, self.max_retry_delay)

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: Params = None,
        json: Any = None,
        retry: bool = True,
        request_timeout: float | None = None,
        content: bytes | None = None,
        extra_headers: Mapping[str, str] | None = None,
        keyed: bool | None = None,
    ) -> httpx.Response:
        """Send one logical request (with retries); return the last response.

        ``content`` sends raw bytes instead of ``json`` (with ``extra_headers`` saying what
        they are). Raises ``BandConnectionError`` when the platform stays unreachable.
        A post made while a message is handled carries that turn's key (``turn_keys``).
        """
        if keyed is False:
            # The request is idempotent by itself (a delivery mark): no key, no turn key.
            return await self._send(
                method, path, params, json, retry, request_timeout, content, extra_headers, False
            )
        json = with_turn_id(method, path, json)  # the turn it belongs to, if any
        own_key = extra_headers is not None and "Idempotency-Key" in extra_headers
        key = None if own_key else turn_post_key(method, path, json)
        if key is None:
            return await self._send(
                method, path, params, json, retry, request_timeout, content, extra_headers
            )
        headers = {**(extra_headers or {}), "Idempotency-Key": key}
        for wait in (*IN_USE_WAITS, None):
            response = await self._send(
                method, path, params, json, retry, request_timeout, content, headers
            )
            code = error_code(response)
            if code == KEY_REUSED:
                return settled_reuse(json)  # an earlier run of this turn made the post
            if code != KEY_IN_USE or wait is None:
                return response
            await self.sleep(wait)  # the earlier run's post is still being written
        raise AssertionError("unreachable")

    async def _send(
        self,
        method: str,
        path: str,
        params: Params,
        json: Any,
        retry: bool,
        request_timeout: float | None,
        content: bytes | None,
        extra_headers: Mapping[str, str] | None,
        keyed: bool | None = None,
    ) -> httpx.Response:
        # The key exists so a retried POST cannot land twice; a request sent once
        # (``retry=False``, e.g. the activity indicator) needs none, and every key costs
        # the platform an idempotency record (two extra writes).
        if keyed is None:
            keyed = method == "POST" and retry
        if extra_headers and "Idempotency-Key" in extra_headers:
            keyed = False  # the caller's key (e.g. the turn's) is the one sent
        headers = {"Idempotency-Key": uuid.uuid4().hex} if keyed else {}
        headers.update(extra_headers or {})
        sent = Attempt(
            method, API_PREFIX + path, _drop_none(params), json, headers, request_timeout, content
        )
        attempt = 0
        waited = 0.0  # backoff slept while the platform looked down
        while True:
            self.request_count += 1
            response: httpx.Response | None = None
            failure: httpx.TransportError | None = None
            try:
                response = await self._request(sent)
            except httpx.TransportError as exc:
                failure = exc
            status = response.status_code if response is not None else None
            outage = failure is not None or status in OUTAGE_STATUSES
            transient = outage or status in RETRY_STATUSES or (status or 0) >= 500
            if retry and transient:
                if attempt < self.max_retries:
                    delay = self._delay(attempt, response)
                elif outage and waited < self.outage_window:
                    delay = min(OUTAGE_DELAY_CAP, self.outage_window - waited)
                else:
                    delay = -1.0
                if delay >= 0:
                    attempt += 1
                    if outage:
                        waited += delay
                    await self.sleep(delay)
                    continue
            if response is None:
                raise BandConnectionError(f"{method} {path} failed: {failure!r}") from failure
            return response

    async def call(self, method: str, path: str, *, params: Params = None, json: Any = None) -> Any:
        """Send and unwrap ``data``; non-2xx raises ``BandRestError``; 204 returns None."""
        return (await self.call_full(method, path, params=params, json=json)).get("data")

    async def call_full(
        self, method: str, path: str, *, params: Params = None, json: Any = None
    ) -> dict[str, Any]:
        """Send and return the whole success body (``data`` plus ``metadata``)."""
        response = await self.send(method, path, params=params, json=json)
        if not response.is_success:
            raise error_from_response(response)
        if response.status_code == 204 or not response.content:
            return {}
        try:
            body = response.json()
        except ValueError as exc:
            raise BandRestError(
                response.status_code, "invalid_response", "response body is not JSON"
            ) from exc
        if not isinstance(body, dict):
            raise BandRestError(response.status_code, "invalid_response", "body is not an object")
        return body
