"""Newline-delimited JSON-RPC with a ``codex app-server`` child over its stdio.

Messages carry no ``"jsonrpc"`` field. Notifications are handled in arrival order, on the
reading task (so an item's events never overtake each other); requests from the server run
as their own tasks, because an approval may wait minutes for the room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from band.adapters._coding.child import ChildProcess, spawn_child
from band.adapters._coding.supervisor import TransportClosed
from band.core.exceptions import BandError

__all__ = ["RpcError", "StdioRpc", "TransportClosed"]

logger = logging.getLogger("band.adapters.codex.rpc")

Handler = Callable[[str, dict[str, Any]], Awaitable[Any]]
LINE_LIMIT = 64 * 1024 * 1024


class RpcError(BandError):
    """The server answered a request with an error."""

    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        self.code = error.get("code")
        self.message = str(error.get("message") or "")
        super().__init__(f"{method} failed: {self.message or error}")


class StdioRpc:
    """One child process and the JSON-RPC conversation over its stdin/stdout."""

    def __init__(
        self, child: ChildProcess, on_notification: Handler, on_request: Handler, label: str
    ) -> None:
        self.child = child
        self.proc = child.proc
        self.label = label
        self._on_notification = on_notification
        self._on_request = on_request
        self._next_id = 0
        self._waiting: dict[int, tuple[str, asyncio.Future[Any]]] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._reader = asyncio.create_task(self._read())
        self.closed = asyncio.Event()

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
        child = await spawn_child(argv, cwd=cwd, env=env, label=label, limit=LINE_LIMIT)
        return cls(child, on_notification, on_request, label)

    @property
    def alive(self) -> bool:
        return self.proc.returncode is None and not self.closed.is_set()

    @property
    def exit_description(self) -> str:
        return self.child.exit_description

    async def request(self, method: str, params: Mapping[str, Any]) -> Any:
        """Send a request and wait for its result; RpcError or TransportClosed otherwise."""
        if not self.alive:
            raise TransportClosed(f"{self.label} is not running ({self.exit_description})")
        self._next_id += 1
        ident = self._next_id
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[ident] = (method, future)
        try:
            await self._send({"id": ident, "method": method, "params": dict(params)})
            return await future
        finally:
            self._waiting.pop(ident, None)

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._send(message)

    async def _send(self, message: Mapping[str, Any]) -> None:
        stdin = self.proc.stdin
        if stdin is None or stdin.is_closing():
            raise TransportClosed(f"{self.label} stdin is closed")
        try:
            stdin.write(json.dumps(message).encode() + b"\n")
            await stdin.drain()
        except (ConnectionError, RuntimeError) as exc:
            raise TransportClosed(f"{self.label} went away: {exc}") from exc

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None  # nosec B101 # narrows for mypy: spawned with stdout piped
        try:
            while line := await stdout.readline():
                try:
                    message = json.loads(line)
                except ValueError:
                    logger.debug("%s: not JSON: %r", self.label, line[:200])
                    continue
                if isinstance(message, dict):
                    await self._dispatch(message)
        except (asyncio.LimitOverrunError, ValueError, ConnectionError) as exc:
            logger.warning("%s: reading stdout failed: %s", self.label, exc)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.proc.wait(), 5)
            self.closed.set()
            error = TransportClosed(f"{self.label} exited ({self.exit_description})")
            for _, future in list(self._waiting.values()):
                if not future.done():
                    future.set_exception(error)

    async def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        ident = message.get("id")
        if method is None:
            waiting = self._waiting.get(ident) if isinstance(ident, int) else None
            if waiting is not None and not waiting[1].done():
                name, future = waiting
                if "error" in message:
                    future.set_exception(RpcError(name, message.get("error") or {}))
                else:
                    future.set_result(message.get("result"))
            return
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if ident is None:
            try:
                await self._on_notification(str(method), params)
            except Exception:
                logger.exception("%s: handling %s failed", self.label, method)
            return
        task = asyncio.create_task(self._answer(ident, str(method), params))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, ident: Any, method: str, params: dict[str, Any]) -> None:
        try:
            result = await self._on_request(method, params)
            reply: dict[str, Any] = {"id": ident, "result": result}
        except Exception as exc:
            logger.warning("%s: request %s failed: %s", self.label, method, exc)
            reply = {"id": ident, "error": {"code": -32603, "message": str(exc)}}
        with contextlib.suppress(TransportClosed):
            await self._send(reply)

    async def close(self) -> None:
        """Stop answering, then stop the process group (stdin closed, terminate, kill)."""
        for task in list(self._tasks):
            task.cancel()
        await self.child.stop()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self._reader, 5)
