"""A ``codex app-server --listen ws://HOST:PORT`` already running, spoken to over a WebSocket.

One JSON-RPC message per text frame. The server does not negotiate permessage-deflate, so
compression is off; frames may be large (a turn's item can carry a whole file). When the
socket closes, requests still waiting fail and ``recv_event`` yields ``TRANSPORT_CLOSED``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from band.core.exceptions import BandConnectionError
from band.integrations.codex.rpc_base import BaseJsonRpcClient, OverloadRetryPolicy

__all__ = ["CodexWebSocketClient"]

logger = logging.getLogger(__name__)

MAX_FRAME_BYTES = 64 * 1024 * 1024


class CodexWebSocketClient(BaseJsonRpcClient):
    """A JSON-RPC client of a Codex app-server listening at ``ws_url``."""

    def __init__(
        self,
        *,
        ws_url: str = "ws://127.0.0.1:8765",
        retry_policy: OverloadRetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        connect_timeout_s: float = 10.0,
    ) -> None:
        super().__init__(retry_policy=retry_policy, sleep=sleep)
        self._transport_label = "websocket frame"
        self.ws_url = ws_url
        self._connect_timeout_s = connect_timeout_s
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None

    async def connect(self) -> None:
        """Open the socket; ``BandConnectionError`` naming the URL when nothing answers."""
        if self._connected:
            return
        try:
            self._ws = await connect(
                self.ws_url,
                compression=None,
                max_size=MAX_FRAME_BYTES,
                open_timeout=self._connect_timeout_s,
            )
        except (OSError, TimeoutError, WebSocketException) as exc:
            raise BandConnectionError(
                f"no Codex app-server answers at {self.ws_url} ({exc}): start one with "
                f"`codex app-server --listen {self.ws_url}` or use the stdio transport"
            ) from exc
        self._connected = True
        self._reader = asyncio.create_task(self._read(self._ws))

    async def close(self) -> None:
        """Close the socket and stop reading; requests still waiting fail."""
        if not self._connected:
            return
        self._connected = False
        ws, reader = self._ws, self._reader
        self._ws = None
        if reader is not None:
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        self._fail_pending("Codex websocket client closed")

    async def _send_json(self, payload: dict[str, Any]) -> None:
        if self._ws is None:
            raise RuntimeError(f"not connected to {self.ws_url}")
        try:
            await self._ws.send(json.dumps(payload, separators=(",", ":")))
        except WebSocketException as exc:
            raise RuntimeError(f"{self.ws_url} went away: {exc}") from exc

    async def _read(self, ws: ClientConnection) -> None:
        try:
            async for frame in ws:
                text = frame.decode("utf-8", "replace") if isinstance(frame, bytes) else frame
                await self._dispatch_rpc_message(text)
        except WebSocketException as exc:
            logger.warning("codex websocket %s: %s", self.ws_url, exc)
        if self._connected:  # the server went away (close() fails the requests itself)
            self._connected = False
            self._fail_pending("Codex websocket disconnected")
