"""Platform nodes served by uvicorn on loopback ports, inside the test's event loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import uvicorn
from fastapi import FastAPI

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform

from .real_services import free_port


@dataclass
class Node:
    """One platform node served by uvicorn on a loopback port."""

    url: str
    ws_url: str
    app: FastAPI

    @property
    def platform(self) -> Platform:
        p: Platform = self.app.state.platform
        return p


@asynccontextmanager
async def serve(settings: Settings) -> AsyncIterator[Node]:
    """Run ``create_app(settings)`` with uvicorn inside the test's event loop."""
    port = free_port()
    application = create_app(settings)
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        ws_per_message_deflate=False,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(500):
        if server.started or task.done():
            break
        await asyncio.sleep(0.02)
    if not server.started:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
        raise RuntimeError("the node did not start")
    try:
        yield Node(
            url=f"http://127.0.0.1:{port}",
            ws_url=f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
            app=application,
        )
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
