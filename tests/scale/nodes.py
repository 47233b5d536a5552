"""Platform nodes on loopback ports: served by uvicorn inside the test's event loop, or as
``band serve`` processes of their own."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
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


@dataclass
class ProcessNode:
    """A ``band serve`` process of its own (so a test can ``kill -9`` it)."""

    url: str
    ws_url: str
    process: subprocess.Popen[bytes]
    log: Path  # its stdout and stderr

    def kill(self) -> None:
        """``kill -9``: no shutdown code runs, nothing is cleaned up."""
        self.process.kill()
        self.process.wait(10)


def _spawn(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(command, env=env, stdout=out, stderr=out)


@asynccontextmanager
async def serve_process(
    settings: Settings, *options: str, healthy: bool = True, **env: str
) -> AsyncIterator[ProcessNode]:
    """Run ``band serve`` (with ``options``) on a free port with ``settings``' data folder,
    database and Redis; unless ``healthy`` is False, wait until its ``/healthz`` answers 200."""
    port = free_port()
    environ = {**os.environ, **env}
    if settings.database_url:
        environ["BAND_DATABASE_URL"] = settings.database_url
    if settings.redis_url:
        environ["BAND_REDIS_URL"] = settings.redis_url
    command = [sys.executable, "-m", "band_server.cli", "serve", "--port", str(port)]
    log = settings.data_dir / f"node-{port}.log"
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    process = _spawn([*command, "--data", str(settings.data_dir), *options], environ, log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        async with httpx.AsyncClient(base_url=url, timeout=2) as client:
            while healthy:
                if process.poll() is not None:
                    raise RuntimeError(f"band serve exited:\n{log.read_text()[-3000:]}")
                with contextlib.suppress(httpx.TransportError):
                    if (await client.get("/healthz")).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"band serve did not start:\n{log.read_text()[-3000:]}")
                await asyncio.sleep(0.1)
        yield ProcessNode(url, f"ws://127.0.0.1:{port}/api/v1/socket/websocket", process, log)
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)
