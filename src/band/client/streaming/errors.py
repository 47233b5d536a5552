"""``WebSocketUpgradeError``: an HTTP answer that refused the WebSocket upgrade."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace

from websockets.asyncio.client import connect

from band.platform.phoenix import UpgradeRejection, parse_upgrade_rejection

__all__ = ["CONNECTION_CONFLICT_CODE", "WebSocketUpgradeError", "probe_upgrade_error"]

CONNECTION_CONFLICT_CODE = "connection_conflict"


class WebSocketUpgradeError(Exception):
    """The platform refused the upgrade with ``status_code`` and its error body."""

    def __init__(
        self,
        *,
        status_code: int,
        code: str | None = None,
        message: str | None = None,
        request_id: str | None = None,
        retry_after: int | None = None,
    ) -> None:
        self.status_code = status_code
        self.code = code
        self.message = message or f"WebSocket upgrade failed with HTTP {status_code}"
        self.request_id = request_id
        self.retry_after = retry_after
        super().__init__(self.message)

    @property
    def is_connection_conflict(self) -> bool:
        """Another live socket holds this agent and this one asked not to supersede it."""
        return self.code == CONNECTION_CONFLICT_CODE

    @classmethod
    def from_exception(
        cls, exc: Exception, *, redact: Callable[[str], str] = str
    ) -> WebSocketUpgradeError | None:
        """The error a handshake exception carries (400, 409, 429, 503 only), else None."""
        response = getattr(exc, "response", None)
        status = getattr(response, "status_code", getattr(exc, "status_code", None))
        if not isinstance(status, int) or status not in {400, 409, 429, 503}:
            return None
        headers = getattr(response, "headers", None) or getattr(exc, "headers", None) or {}
        body = bytes(getattr(response, "body", b"") or b"")
        rejection = parse_upgrade_rejection(status, body, headers.get("Retry-After"))
        request_id = None
        if b"request_id" in body:
            import json

            try:
                found = json.loads(body).get("error", {}).get("request_id")
            except (ValueError, AttributeError):
                found = None
            request_id = found if isinstance(found, str) else None

        def shown(value: str | None) -> str | None:
            return redact(value) if value else None

        redacted = replace(rejection, code=shown(rejection.code), message=shown(rejection.message))
        return cls.from_rejection(redacted, request_id=shown(request_id))

    @classmethod
    def from_rejection(
        cls, rejection: UpgradeRejection, *, request_id: str | None = None
    ) -> WebSocketUpgradeError:
        """The error for a refused upgrade as the socket read it (retry hint in whole seconds)."""
        retry = rejection.retry_after
        return cls(
            status_code=rejection.status,
            code=rejection.code,
            message=rejection.message,
            request_id=request_id,
            retry_after=int(retry) if retry is not None else None,
        )


async def probe_upgrade_error(
    websocket_url: str,
    headers: Mapping[str, str],
    *,
    logger: logging.Logger,
    redact: Callable[[str], str],
) -> WebSocketUpgradeError | None:
    """Try one upgrade (5 s at most) to learn why the platform refuses it; None if it opens."""
    try:
        async with connect(
            websocket_url, additional_headers=dict(headers), open_timeout=5, logger=logger
        ):
            return None
    except Exception as exc:
        return WebSocketUpgradeError.from_exception(exc, redact=redact)
