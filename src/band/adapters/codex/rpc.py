"""A room's JSON-RPC channel to its ``codex app-server``: ``CodexStdioClient`` plus a reader.

The client (``band.integrations.codex.stdio_client``) owns the child and the protocol; the
reader hands each event the server sends, in arrival order, to one handler, ending with the
``transport/closed`` notice. A request from the server is answered by whoever it reaches,
with ``respond`` / ``respond_error`` under its own id (an approval may wait minutes for the
room). A failed request raises ``CodexJsonRpcError``; a request the transport's end cut
short raises ``TransportClosed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from band.adapters._coding.supervisor import TransportClosed
from band.integrations.codex.rpc_base import (
    TRANSPORT_CLOSED,
    CodexJsonRpcError,
    JsonRpcId,
    RpcEvent,
)
from band.integrations.codex.stdio_client import CodexStdioClient

__all__ = [
    "INTERNAL_ERROR",
    "METHOD_NOT_FOUND",
    "CodexClientProtocol",
    "CodexJsonRpcError",
    "EventHandler",
    "StdioRpc",
    "TransportClosed",
    "answer",
    "answer_error",
]

logger = logging.getLogger("band.adapters.codex.rpc")

EventHandler = Callable[[RpcEvent], Awaitable[None]]
INTERNAL_ERROR = -32603
METHOD_NOT_FOUND = -32601


@runtime_checkable
class CodexClientProtocol(Protocol):
    """What the adapter needs of a Codex JSON-RPC client (``band.integrations.codex``'s
    stdio and WebSocket clients both are one)."""

    async def connect(self) -> None: ...

    async def initialize(
        self,
        *,
        client_name: str,
        client_title: str,
        client_version: str,
        experimental_api: bool = False,
        opt_out_notification_methods: list[str] | None = None,
    ) -> dict[str, Any]: ...

    async def request(
        self, method: str, params: dict[str, Any] | None = None, *, retry_on_overload: bool = True
    ) -> dict[str, Any]: ...

    async def recv_event(self, timeout_s: float | None = None) -> RpcEvent: ...

    async def respond(self, request_id: int | str, result: dict[str, Any]) -> None: ...

    async def respond_error(
        self, request_id: int | str, *, code: int, message: str, data: Any | None = None
    ) -> None: ...

    async def close(self) -> None: ...


class StdioRpc:
    """A connected ``CodexStdioClient`` whose server events go to ``on_event``."""

    def __init__(self, client: CodexStdioClient, on_event: EventHandler) -> None:
        self.client = client
        self.label = client.label
        self._on_event = on_event
        self.closed = asyncio.Event()
        self.reader = asyncio.create_task(self._read_events())

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        on_event: EventHandler,
        label: str,
    ) -> StdioRpc:
        client = CodexStdioClient(command=argv, cwd=cwd, env=env, label=label)
        await client.connect()
        return cls(client, on_event)

    @property
    def proc(self) -> asyncio.subprocess.Process:
        process = self.client.process
        if process is None:
            raise TransportClosed(f"{self.label} is not running")
        return process

    @property
    def alive(self) -> bool:
        return self.client.connected and not self.closed.is_set()

    @property
    def exit_description(self) -> str:
        return self.client.exit_description

    async def initialize(
        self, info: Mapping[str, str], *, experimental_api: bool = True
    ) -> dict[str, Any]:
        """The ``initialize`` handshake as ``info`` (``name``, ``title``, ``version``)."""
        return await self._guard(
            self.client.initialize(
                client_name=info["name"],
                client_title=info["title"],
                client_version=info["version"],
                experimental_api=experimental_api,
            )
        )

    async def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """Send a request and wait for its result; overloads are retried by the client."""
        return await self._guard(self.client.request(method, dict(params)))

    async def _guard(self, call: Awaitable[dict[str, Any]]) -> dict[str, Any]:
        if not self.alive:
            if isinstance(call, Coroutine):
                call.close()
            raise TransportClosed(f"{self.label} is not running ({self.exit_description})")
        try:
            return await call
        except CodexJsonRpcError:
            raise
        except RuntimeError as exc:
            raise TransportClosed(str(exc)) from exc

    async def _read_events(self) -> None:
        client: CodexClientProtocol = self.client
        try:
            while True:
                event = await client.recv_event()
                try:
                    await self._on_event(event)
                except Exception:
                    logger.exception("%s: handling %s failed", self.label, event.method)
                    if event.is_request and event.id is not None:
                        await answer_error(client, event.id, INTERNAL_ERROR, "handler failed")
                if event.method == TRANSPORT_CLOSED:
                    return
        finally:
            self.closed.set()

    async def close(self) -> None:
        """Stop reading, then stop the process group (stdin closed, terminate, kill)."""
        await self.client.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.reader, 5)
        if not self.reader.done():
            self.reader.cancel()


async def answer(client: CodexClientProtocol, request_id: JsonRpcId, result: Any) -> None:
    """Answer the server's request ``request_id``; a process already gone is not an error."""
    with contextlib.suppress(RuntimeError):
        await client.respond(request_id, result)


async def answer_error(
    client: CodexClientProtocol, request_id: JsonRpcId, code: int, message: str
) -> None:
    """Refuse the server's request ``request_id``; a process already gone is not an error."""
    with contextlib.suppress(RuntimeError):
        await client.respond_error(request_id, code=code, message=message)
