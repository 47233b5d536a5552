"""Opening the WebSocket: one upgrade attempt, the first connect, and reconnect attempts.

An upgrade refused with HTTP status becomes ``UpgradeRejected`` carrying the parsed error
body; 400 and 409 end the first connect at once, 429 and 503 honour ``retry_after``, and
everything else (refused TCP, 401, 5xx, ...) is retried on ``initial_retry_delays``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import InvalidStatus, WebSocketException

from band_protocol.redaction import RedactSecrets

from .phoenix import parse_upgrade_rejection
from .socket_policy import ReconnectPolicy, SocketError, SocketTerminated, UpgradeRejected

__all__ = ["TRANSPORT_ERRORS", "first_connect", "open_websocket", "reconnect"]

log = logging.getLogger("band.platform.socket")
# What the websockets library logs of our connections (at debug: the handshake's URL and
# headers, the agent's key among them), with every secret masked.
wire_log = logging.getLogger("band.platform.websocket")
wire_log.addFilter(RedactSecrets())

TRANSPORT_ERRORS = (OSError, TimeoutError, WebSocketException)
MAX_FRAME_BYTES = 16 * 1024 * 1024


async def open_websocket(
    url: str, headers: Mapping[str, str], open_timeout: float
) -> ClientConnection:
    """One upgrade: compression off, no WS pings (the Phoenix heartbeat is the liveness)."""
    try:
        return await connect(
            url,
            additional_headers=dict(headers),
            compression=None,
            open_timeout=open_timeout,
            ping_interval=None,
            max_size=MAX_FRAME_BYTES,
            logger=wire_log,
        )
    except InvalidStatus as exc:
        response = exc.response
        rejection = parse_upgrade_rejection(
            response.status_code, bytes(response.body), response.headers.get("Retry-After")
        )
        raise UpgradeRejected(rejection) from exc


async def first_connect(
    attempt: Callable[[], Awaitable[ClientConnection]], delays: tuple[float, ...]
) -> ClientConnection:
    """Run ``attempt`` until it succeeds, a terminal refusal, or ``delays`` run out."""
    failures = 0
    error: Exception
    delay: float | None
    while True:
        try:
            return await attempt()
        except UpgradeRejected as exc:
            if exc.rejection.terminal:
                raise
            delay, error = exc.rejection.retry_after, exc
        except TRANSPORT_ERRORS as exc:
            delay, error = None, exc
        if failures >= len(delays):
            raise SocketError(f"could not connect after {failures + 1} attempts: {error}")
        wait = delays[failures] if delay is None else delay
        failures += 1
        log.warning("Connect failed (%s); retrying in %.1fs", error, wait)
        await asyncio.sleep(wait)


async def reconnect(
    attempt: Callable[[], Awaitable[ClientConnection]],
    policy: ReconnectPolicy,
    wake: asyncio.Event,
    closing: Callable[[], bool],
) -> ClientConnection | SocketTerminated | None:
    """Retry ``attempt`` on the policy's delays; None when closing, terminal on 400/409."""
    while not closing():
        delay = policy.next_delay()
        log.info("Reconnecting in %.2fs (attempt %d)", delay, policy.attempt)
        wake.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(wake.wait(), delay)  # close() wakes us early
        if closing():
            return None
        try:
            return await attempt()
        except UpgradeRejected as exc:
            if exc.rejection.terminal:
                return SocketTerminated(str(exc), exc.rejection.status)
            policy.retry_after(exc.rejection.retry_after)
            log.warning("Reconnect refused: %s", exc)
        except TRANSPORT_ERRORS as exc:
            log.warning("Reconnect failed: %s", exc)
    return None
