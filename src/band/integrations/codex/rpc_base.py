"""The JSON-RPC conversation with ``codex app-server``, whatever carries it (stdio or WebSocket).

``codex app-server`` speaks JSON-RPC 2.0 without the ``"jsonrpc"`` member, both ways: we send
requests and notifications, it answers ours and sends its own (notifications about a turn,
requests for approvals). ``BaseJsonRpcClient`` pairs answers with our requests, queues what
the server sends as ``RpcEvent`` values for ``recv_event``, retries requests the server refused
as overloaded (code -32001) with backoff, and, once the transport is gone, fails every request
still waiting and queues one ``TRANSPORT_CLOSED`` notification. Transports subclass it and
feed each received text frame to ``_dispatch_rpc_message``.
"""

from __future__ import annotations

import abc
import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from band.core.exceptions import BandError
from band.integrations.codex.types import CodexRequestMethod

__all__ = [
    "TRANSPORT_CLOSED",
    "BaseJsonRpcClient",
    "CodexJsonRpcError",
    "JsonRpcId",
    "OverloadRetryPolicy",
    "RpcEvent",
]

logger = logging.getLogger(__name__)

JsonRpcId = int | str

TRANSPORT_CLOSED = "transport/closed"
"""The method of the notification a client queues once its transport is gone."""

OVERLOADED = -32001
_EVENT_QUEUE_SIZE = 10_000


class CodexJsonRpcError(BandError, RuntimeError):
    """The server answered a request with a JSON-RPC error (``code``, ``message``, ``data``)."""

    def __init__(self, *, code: int, message: str, data: Any | None = None) -> None:
        self.code = code
        self.message = message
        self.data = data
        super().__init__(f"Codex JSON-RPC error {code}: {message}")


@dataclass(frozen=True)
class OverloadRetryPolicy:
    """How often, and after how long, a request refused as overloaded (-32001) is sent again.

    ``max_attempts`` counts the first try. The wait before retry N doubles from
    ``base_delay_s`` up to ``max_delay_s``, moved by up to ``jitter_s`` either way.
    """

    max_attempts: int = 3
    base_delay_s: float = 0.25
    max_delay_s: float = 2.0
    jitter_s: float = 0.1

    def backoff_seconds(self, attempt_number: int) -> float:
        """The wait after failed attempt ``attempt_number`` (1 is the first try), never < 0."""
        delay = min(self.base_delay_s * 2.0 ** max(attempt_number - 1, 0), self.max_delay_s)
        if self.jitter_s > 0:
            delay += random.uniform(-self.jitter_s, self.jitter_s)  # nosec B311 # not crypto
        return max(delay, 0.0)


@dataclass(frozen=True)
class RpcEvent:
    """Something the server sent that is not an answer: a notification or a request."""

    kind: Literal["notification", "request"]
    method: str
    params: dict[str, Any] | list[Any] | None
    id: JsonRpcId | None
    raw: dict[str, Any]

    @property
    def is_request(self) -> bool:
        """True when the server waits for ``respond`` / ``respond_error`` with this ``id``."""
        return self.kind == "request"


class BaseJsonRpcClient(abc.ABC):
    """The transport-independent half of a Codex JSON-RPC client.

    A subclass opens and closes its transport (``connect``, ``close``), writes one message
    (``_send_json``), hands every received frame to ``_dispatch_rpc_message`` and calls
    ``_fail_pending`` when the transport ends.
    """

    def __init__(
        self,
        *,
        retry_policy: OverloadRetryPolicy | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.retry_policy = retry_policy or OverloadRetryPolicy()
        self._sleep = sleep
        self._pending: dict[JsonRpcId, asyncio.Future[dict[str, Any]]] = {}
        self._events: asyncio.Queue[RpcEvent] = asyncio.Queue(maxsize=_EVENT_QUEUE_SIZE)
        self._request_id = 0
        self._connected = False
        self._transport_label = "message"

    @property
    def connected(self) -> bool:
        """True between a successful ``connect`` and ``close`` (or the transport's end)."""
        return self._connected

    @abc.abstractmethod
    async def connect(self) -> None:
        """Open the transport and start reading from it."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Close the transport; requests still waiting fail."""

    @abc.abstractmethod
    async def _send_json(self, payload: dict[str, Any]) -> None:
        """Write one JSON-RPC message to the transport."""

    async def initialize(
        self,
        *,
        client_name: str,
        client_title: str,
        client_version: str,
        experimental_api: bool = False,
        opt_out_notification_methods: list[str] | None = None,
    ) -> dict[str, Any]:
        """The ``initialize`` handshake (never retried), then the ``initialized`` notification."""
        capabilities: dict[str, Any] = {"experimentalApi": experimental_api}
        if opt_out_notification_methods:
            capabilities["optOutNotificationMethods"] = list(opt_out_notification_methods)
        info = {"name": client_name, "title": client_title, "version": client_version}
        result = await self.request(
            CodexRequestMethod.INITIALIZE,
            {"clientInfo": info, "capabilities": capabilities},
            retry_on_overload=False,
        )
        await self.notify("initialized", {})
        return result

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, retry_on_overload: bool = True
    ) -> dict[str, Any]:
        """Send a request and return its ``result`` (``{}`` when empty).

        Raises ``CodexJsonRpcError`` for an error answer, after ``retry_policy`` when the error
        is an overload and ``retry_on_overload`` holds; ``RuntimeError`` when the transport
        closes first.
        """
        attempt = 1
        while True:
            try:
                return await self._request_once(method, params or {})
            except CodexJsonRpcError as exc:
                retry = retry_on_overload and self._is_retryable_overload(exc)
                if not retry or attempt >= self.retry_policy.max_attempts:
                    raise
                delay = self.retry_policy.backoff_seconds(attempt)
                logger.warning(
                    "codex is overloaded: %s again in %.2fs (attempt %d of %d)",
                    method,
                    delay,
                    attempt + 1,
                    self.retry_policy.max_attempts,
                )
                await self._sleep(delay)
                attempt += 1

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no answer comes)."""
        await self._send_json({"method": method, "params": params or {}})

    async def respond(self, request_id: JsonRpcId, result: dict[str, Any]) -> None:
        """Answer the server's request ``request_id`` with ``result``."""
        await self._send_json({"id": request_id, "result": result})

    async def respond_error(
        self, request_id: JsonRpcId, *, code: int, message: str, data: Any | None = None
    ) -> None:
        """Answer the server's request ``request_id`` with a JSON-RPC error."""
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        await self._send_json({"id": request_id, "error": error})

    async def recv_event(self, timeout_s: float | None = None) -> RpcEvent:
        """The next notification or request from the server, in arrival order.

        Waits ``timeout_s`` seconds at most (``TimeoutError`` after), forever when None.
        """
        if timeout_s is None:
            return await self._events.get()
        return await asyncio.wait_for(self._events.get(), timeout_s)

    async def _request_once(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        ident = self._next_request_id()
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = answer
        try:
            await self._send_json({"method": method, "id": ident, "params": params})
            response = await answer
        finally:
            self._pending.pop(ident, None)
        if "error" in response:
            error = response.get("error")
            error = error if isinstance(error, dict) else {}
            raise CodexJsonRpcError(
                code=int(error.get("code", -32000)),
                message=str(error.get("message", "unknown JSON-RPC error")),
                data=error.get("data"),
            )
        result = response.get("result")
        return result if isinstance(result, dict) else {}

    def _fail_pending(self, reason: str) -> None:
        """Fail every waiting request with ``RuntimeError(reason)``; queue TRANSPORT_CLOSED."""
        error = RuntimeError(reason)
        waiting, self._pending = list(self._pending.values()), {}
        for future in waiting:
            if not future.done():
                future.set_exception(error)
        params = {"reason": reason}
        self._put(
            RpcEvent(
                kind="notification",
                method=TRANSPORT_CLOSED,
                params=params,
                id=None,
                raw={"method": TRANSPORT_CLOSED, "params": params},
            )
        )

    async def _dispatch_rpc_message(self, text: str) -> None:
        """Route one received frame: an answer to its request, anything else to the queue."""
        text = text.strip()
        if not text:
            return
        try:
            message = json.loads(text)
        except ValueError:
            logger.warning("skipping a %s that is not JSON: %.200s", self._transport_label, text)
            return
        if not isinstance(message, dict):
            logger.warning("skipping a JSON-RPC %s that is no object", self._transport_label)
            return
        ident, method = message.get("id"), message.get("method")
        if method:
            kind: Literal["notification", "request"] = "notification"
            if ident is not None:
                kind = "request"
            params = message.get("params")
            self._put(RpcEvent(kind=kind, method=str(method), params=params, id=ident, raw=message))
        elif ident is not None:
            future = self._pending.get(ident)
            if future is not None and not future.done():
                future.set_result(message)
        else:
            logger.debug("ignoring a JSON-RPC message with neither id nor method")

    def _put(self, event: RpcEvent) -> None:
        try:
            self._events.put_nowait(event)
        except asyncio.QueueFull:
            logger.warning("codex event queue is full: dropped %s %s", event.kind, event.method)

    def _next_request_id(self) -> int:
        self._request_id += 1
        return self._request_id

    @staticmethod
    def _is_retryable_overload(err: CodexJsonRpcError) -> bool:
        return err.code == OVERLOADED and "overload" in err.message.lower()
