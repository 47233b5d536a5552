"""The latency floor: the least a durable chat server can do on our stack.

Same server stack as the platform (uvicorn with server_stack's options, Starlette, aiosqlite,
SQLite WAL with synchronous=FULL). Each POST does one durable insert, acknowledged after its
batch's fsync (**group commit**, as the platform does: one writer task takes every insert queued
while the previous commit ran, inserts them in one transaction, commits, then answers each), and
pushes one WebSocket frame to the connected listener. Nothing else: no auth, no validation, no
fan-out rules. Without group commit the floor commits each insert alone and the platform beats
it: it would measure nothing.
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
    state["wake"] = asyncio.Event()
    writer = asyncio.create_task(group_commit(db, state["wake"]))
    yield
    writer.cancel()
    await db.close()


pending: list[tuple[tuple[str, str], asyncio.Future[None]]] = []
MAX_BATCH = 256  # as the platform's store.group_commit


async def group_commit(db: aiosqlite.Connection, wake: asyncio.Event) -> None:
    """The one writer: every insert queued meanwhile goes into the next transaction."""
    while True:
        await wake.wait()
        wake.clear()
        while pending:
            batch = pending[:MAX_BATCH]
            del pending[:MAX_BATCH]
            try:
                await db.executemany(
                    "INSERT INTO messages (id, body) VALUES (?, ?)", [row for row, _ in batch]
                )
                await db.commit()
            except Exception as exc:  # a failed commit fails its whole batch
                for _, done in batch:
                    done.set_exception(exc)
                continue
            for _, done in batch:
                done.set_result(None)


async def post(request: Request) -> JSONResponse:
    body = await request.json()
    message_id = str(uuid.uuid4())
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    pending.append(((message_id, json.dumps(body)), done))
    state["wake"].set()
    await done  # durable: its batch's COMMIT returned
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
