"""A room's JSON-RPC channel to its ``codex app-server``: ``CodexStdioClient`` plus dispatch.

The client (``band.integrations.codex.stdio_client``) owns the child and the protocol; this
turns its event queue into calls. Notifications are handled in arrival order on one task (so
an item's events never overtake each other); requests from the server run as their own
tasks, because an approval may wait minutes for the room. A failed request raises
``CodexJsonRpcError``; a request the transport's end cut short raises ``TransportClosed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from band.adapters._coding.supervisor import TransportClosed
from band.integrations.codex.rpc_base import TRANSPORT_CLOSED, CodexJsonRpcError, RpcEvent
from band.integrations.codex.stdio_client import CodexStdioClient

__all__ = ["CodexClientProtocol", "CodexJsonRpcError", "StdioRpc", "TransportClosed"]

logger = logging.getLogger("band.adapters.codex.rpc")

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]
INTERNAL_ERROR = -32603


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
    """A connected ``CodexStdioClient`` whose server events go to two handlers."""

    def __init__(
        self, client: CodexStdioClient, on_notification: Handler, on_request: Handler
    ) -> None:
        self.client = client
        self.label = client.label
        self._on_notification = on_notification
        self._on_request = on_request
        self._tasks: set[asyncio.Task[Any]] = set()
        self.closed = asyncio.Event()
        self._pump = asyncio.create_task(self._pump_events())

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: str,
        env: Mapping[str, str],
        on_notification: Handler,
        on_request: Handler,
        label: str,
    ) -> StdioRpc:
        client = CodexStdioClient(command=argv, cwd=cwd, env=env, label=label)
        await client.connect()
        return cls(client, on_notification, on_request)

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

    async def _pump_events(self) -> None:
        client: CodexClientProtocol = self.client
        try:
            while (event := await client.recv_event()).method != TRANSPORT_CLOSED:
                params = event.params if isinstance(event.params, dict) else {}
                if event.is_request:
                    task = asyncio.create_task(self._answer(event, params))
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                    continue
                try:
                    await self._on_notification(event.method, params)
                except Exception:
                    logger.exception("%s: handling %s failed", self.label, event.method)
        finally:
            self.closed.set()

    async def _answer(self, event: RpcEvent, params: dict[str, Any]) -> None:
        assert event.id is not None  # nosec B101 # a request always carries its id
        try:
            result = await self._on_request(event.method, params)
        except Exception as exc:
            logger.warning("%s: request %s failed: %s", self.label, event.method, exc)
            with contextlib.suppress(RuntimeError):
                await self.client.respond_error(event.id, code=INTERNAL_ERROR, message=str(exc))
            return
        with contextlib.suppress(RuntimeError):
            await self.client.respond(event.id, result)

    async def close(self) -> None:
        """Stop answering, then stop the process group (stdin closed, terminate, kill)."""
        for task in list(self._tasks):
            task.cancel()
        await self.client.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self._pump, 5)
