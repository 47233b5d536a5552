"""Shared fixtures: an in-process platform (ASGI) and a live one on a loopback port."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from band_server.app import create_app
from band_server.config import Settings
from band_server.context import Platform
from band_server.services.identity import accounts


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Seeded:
    """A person with a key, an agent of theirs with a key, and a room with both in it."""

    user_id: str
    user_key: str
    user_handle: str
    agent_id: str
    agent_key: str
    agent_handle: str


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=None, redis_url=None)


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[FastAPI]:
    application = create_app(settings)
    async with application.router.lifespan_context(application):
        yield application


@pytest.fixture
def platform(app: FastAPI) -> Platform:
    p: Platform = app.state.platform
    return p


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
        yield c


async def make_user(platform: Platform, handle: str, name: str | None = None) -> tuple[str, str]:
    async with platform.db.write() as session:
        user, key = await accounts.create_user(session, name=name or handle.title(), handle=handle)
        return user.id, key


async def make_agent(
    platform: Platform, owner_id: str, name: str, description: str = "A helpful test agent"
) -> tuple[str, str, str]:
    async with platform.db.write() as session:
        owner = await accounts.get_user(session, owner_id)
        agent, key = await accounts.create_agent(session, owner, name=name, description=description)
        return agent.id, key, agent.handle


@pytest.fixture
async def seeded(platform: Platform) -> Seeded:
    user_id, user_key = await make_user(platform, "alice", "Alice")
    agent_id, agent_key, handle = await make_agent(platform, user_id, "Echo")
    return Seeded(user_id, user_key, "alice", agent_id, agent_key, handle)


@dataclass
class LiveServer:
    url: str
    ws_url: str
    app: FastAPI

    @property
    def platform(self) -> Platform:
        p: Platform = self.app.state.platform
        return p


@pytest.fixture
async def live_server(settings: Settings) -> AsyncIterator[LiveServer]:
    """The platform served by uvicorn on a loopback port, inside the test's event loop."""
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
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.02)
    try:
        yield LiveServer(
            url=f"http://127.0.0.1:{port}",
            ws_url=f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
            app=application,
        )
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)
