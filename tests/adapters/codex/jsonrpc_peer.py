"""A scripted JSON-RPC peer speaking like ``codex app-server``, over stdio or a WebSocket.

Run as ``python jsonrpc_peer.py`` it talks newline-delimited JSON on its stdio;
``serve_websocket`` serves the same script on a loopback WebSocket. What it does, by method:

- ``initialize``: ``{"userAgent": "scripted-peer"}``; notifications are remembered and
  ``notes`` returns their methods.
- ``busy`` with ``{"times": N}``: refuses N times as overloaded (-32001), then answers
  ``{"attempts": <tries>}``; ``fail``: error -32602 with ``data``.
- ``ask``: first sends a notification and a request of its own (``id``, ``method`` and
  ``params`` from its params; by default ``"srv-1"``, ``item/tool/call``, ``{"q": 1}``),
  then answers ``{"answer": <what the client responded>}``.
- ``hang``: never answers; ``leave``: says goodbye on stderr and exits with code 3 (closes
  the socket with the WebSocket).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

Send = Callable[[dict[str, Any]], Awaitable[None]]


class Script:
    def __init__(self, send: Send) -> None:
        self.send = send
        self.tries: dict[str, int] = {}
        self.notes: list[str] = []
        self.waiting: dict[Any, asyncio.Future[Any]] = {}
        self.left = asyncio.Event()
        self.tasks: set[asyncio.Task[None]] = set()

    async def handle(self, message: dict[str, Any]) -> None:
        ident, method = message.get("id"), message.get("method")
        if method is None:  # the client's answer to our request
            future = self.waiting.pop(ident, None)
            if future is not None:
                future.set_result(message.get("result", message.get("error")))
            return
        if ident is None:
            self.notes.append(str(method))
            return
        task = asyncio.create_task(self.answer(ident, str(method), message.get("params") or {}))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def answer(self, ident: Any, method: str, params: dict[str, Any]) -> None:
        self.tries[method] = tries = self.tries.get(method, 0) + 1
        reply: dict[str, Any]
        if method == "initialize":
            reply = {"result": {"userAgent": "scripted-peer", "params": params}}
        elif method == "notes":
            reply = {"result": {"notes": self.notes}}
        elif method == "busy" and tries <= int(params.get("times", 0)):
            reply = {"error": {"code": -32001, "message": "Server overloaded; retry later"}}
        elif method == "busy":
            reply = {"result": {"attempts": tries}}
        elif method == "fail":
            reply = {"error": {"code": -32602, "message": "bad params", "data": {"field": "x"}}}
        elif method == "ask":
            future = asyncio.get_running_loop().create_future()
            asked = params.get("id", "srv-1")
            self.waiting[asked] = future
            await self.send({"method": "turn/started", "params": {"turn": {"id": "t1"}}})
            question = {"method": params.get("method", "item/tool/call")}
            await self.send({"id": asked, **question, "params": params.get("params", {"q": 1})})
            reply = {"result": {"answer": await future}}
        elif method == "hang":
            return
        elif method == "leave":
            self.left.set()
            return
        else:
            reply = {"error": {"code": -32601, "message": f"unknown method {method}"}}
        await self.send({"id": ident, **reply})


async def first(*waits: Awaitable[Any]) -> Any:
    """The result of whichever of ``waits`` finishes first (the others are cancelled)."""
    tasks = [asyncio.ensure_future(w) for w in waits]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    return next(iter(done)).result()


async def serve_stdio() -> None:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    async def send(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    script = Script(send)
    sys.stdout.write("this line is not JSON\n[1, 2]\n")
    sys.stdout.flush()
    while line := await first(reader.readline(), script.left.wait()):
        if line is True:  # the script said leave
            sys.stderr.write("peer is leaving\n")
            sys.stderr.flush()
            raise SystemExit(3)
        await script.handle(json.loads(line))


async def serve_websocket() -> tuple[Any, str]:
    """A loopback WebSocket server running the script per connection, and its URL."""
    from websockets.asyncio.server import ServerConnection, serve

    async def session(ws: ServerConnection) -> None:
        async def send(message: dict[str, Any]) -> None:
            await ws.send(json.dumps(message))

        script = Script(send)

        async def read() -> None:
            async for frame in ws:
                await script.handle(json.loads(frame))

        await first(read(), script.left.wait())
        await ws.close()

    server = await serve(session, "127.0.0.1", 0)
    port = next(iter(server.sockets)).getsockname()[1]
    return server, f"ws://127.0.0.1:{port}"


if __name__ == "__main__":
    asyncio.run(serve_stdio())
