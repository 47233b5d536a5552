"""A socket that sends nothing for ``heartbeat_timeout`` seconds is closed by the server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from socket_testkit import phx, seed
from websockets.exceptions import ConnectionClosed

from band_server.config import Settings
from conftest import LiveServer


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # Overrides the shared fixture: a short timeout keeps the test fast.
    return Settings(
        data_dir=tmp_path / "data", database_url=None, redis_url=None, heartbeat_timeout=0.6
    )


async def test_silent_socket_is_closed_after_heartbeat_timeout(live_server: LiveServer) -> None:
    s = await seed(live_server.platform)
    async with phx(live_server.ws_url, s.agent_key) as c:
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(c.ws.recv(), 5)
        assert closed.value.rcvd is not None
        # A normal close: the official client reconnects after it.
        assert closed.value.rcvd.code == 1000
    for _ in range(100):
        if not live_server.platform.hub.is_online(s.agent_id):
            break
        await asyncio.sleep(0.02)
    assert not live_server.platform.hub.is_online(s.agent_id)


async def test_heartbeats_keep_the_socket_open(live_server: LiveServer) -> None:
    s = await seed(live_server.platform)
    async with phx(live_server.ws_url, s.agent_key) as c:
        for _ in range(4):
            await asyncio.sleep(0.3)
            assert (await c.heartbeat())[4]["status"] == "ok"
