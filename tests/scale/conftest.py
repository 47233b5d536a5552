"""Fixtures for scale-out tests: a real redis-server, a real PostgreSQL, platform nodes."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from band_server.config import Settings

from .nodes import Node, serve
from .real_services import PostgresServer, RedisServer


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of this test alone (pub/sub channels are global to a server)."""
    workdir = tmp_path / "redis"
    workdir.mkdir()
    server = RedisServer(workdir)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL cluster for the session; each test gets its own database."""
    server = PostgresServer()
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
async def pg_url(postgres_server: PostgresServer) -> str:
    """The SQLAlchemy URL of a fresh, empty PostgreSQL database."""
    return await postgres_server.create_database()


@pytest.fixture
async def two_nodes(
    tmp_path: Path, pg_url: str, redis_server: RedisServer
) -> AsyncIterator[tuple[Node, Node]]:
    """Nodes A and B sharing one PostgreSQL database and one Redis."""
    settings = Settings(data_dir=tmp_path / "data", database_url=pg_url, redis_url=redis_server.url)
    # One after the other: the first start runs the migrations.
    async with serve(settings) as a, serve(settings) as b:
        yield a, b
