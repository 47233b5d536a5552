"""The latency floor: the least a durable chat server can do on our stack.

Same server stack as the platform (uvicorn with server_stack's options, Starlette, aiosqlite,
SQLite WAL with synchronous=FULL). Each POST does one durable insert, then pushes one
WebSocket frame to the connected listener. Nothing else: no auth, no validation, no fan-out rules.
``/socket`` is the floor of an idle Phoenix socket: accept, answer every ``phx_join`` and
heartbeat with an ``ok`` reply, hold nothing else (no key check, no topics kept).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiosqlite
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

DB_PATH = os.environ.get("FLOOR_DB", "floor.db")
listeners: set[WebSocket] = set()
state: dict[str, Any] = {}


@asynccontextmanager
async def lifespan(_app: Starlette) -> AsyncIterator[None]:
    db = await aiosqlite.connect(DB_PATH)
    await db.execute("PRAGMA journal_mode=WAL")
    await db.execute("PRAGMA synchronous=FULL")
    await db.execute("CREATE TABLE IF NOT EXISTS messages (id TEXT PRIMARY KEY, body TEXT)")
    await db.commit()
    state["db"] = db
    state["lock"] = asyncio.Lock()
    yield
    await db.close()


async def post(request: Request) -> JSONResponse:
    body = await request.json()
    message_id = str(uuid.uuid4())
    async with state["lock"]:
        await state["db"].execute(
            "INSERT INTO messages (id, body) VALUES (?, ?)", (message_id, json.dumps(body))
        )
        await state["db"].commit()
    frame = json.dumps(["1", None, "chat_room:x", "message_created", {"id": message_id, **body}])
    for ws in list(listeners):
        await ws.send_text(frame)
    return JSONResponse({"data": {"id": message_id}}, status_code=201)


async def socket(ws: WebSocket) -> None:
    await ws.accept()
    listeners.add(ws)
    try:
        while True:
            await ws.receive_text()
    except WebSocketDisconnect:
        pass
    finally:
        listeners.discard(ws)


async def phoenix_socket(ws: WebSocket) -> None:
    await ws.accept()
    try:
        while True:
            join_ref, ref, topic, _event, _payload = json.loads(await ws.receive_text())
            reply = {"status": "ok", "response": {}}
            await ws.send_text(json.dumps([join_ref, ref, topic, "phx_reply", reply]))
    except WebSocketDisconnect:
        pass


app = Starlette(
    routes=[
        Route("/post", post, methods=["POST"]),
        WebSocketRoute("/ws", socket),
        WebSocketRoute("/socket", phoenix_socket),
    ],
    lifespan=lifespan,
)

if __name__ == "__main__":
    from band_server.server_stack import uvicorn_options

    uvicorn.run(
        app,
        host="127.0.0.1",
        port=int(sys.argv[1]),
        log_level="warning",
        access_log=False,
        **uvicorn_options(),
    )
