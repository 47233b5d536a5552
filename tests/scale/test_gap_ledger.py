"""A node cut off from Redis keeps committing; if it dies before Redis is back, the node that
finds it dead reads its row in the gap ledger and tells every agent socket opened before then
to resync, not only those opened before the dead node's last renewal (docs/decisions.md, "A
fan-out gap closes only the sockets opened before it ended")."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path

import httpx
from sqlalchemy import func, select

from band_server.config import Settings
from band_server.fanout.bus import GAP_CLOCK_MARGIN
from band_server.realtime.hub import RESYNC_CLOSE_CODE
from band_server.store.models import FanoutGap
from faults.proxy import Balancer

from .nodes import Node, serve, serve_process
from .real_services import RedisServer
from .test_presence import _closed_with, _sees_others, agent_socket, until
from .test_two_nodes import make_world

TTL = 6.0  # long enough for the cut-off node to find its lost publish before it expires
INTERVAL = 0.25


async def gap_rows(node: Node) -> int:
    async with node.platform.db.read() as session:
        return int(await session.scalar(select(func.count()).select_from(FanoutGap)) or 0)


async def test_a_node_that_dies_cut_off_from_redis_leaves_its_gap_to_the_others(
    tmp_path: Path, pg_url: str, redis_server: RedisServer
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        database_url=pg_url,
        redis_url=redis_server.url,
        presence_ttl=TTL,
        presence_interval=INTERVAL,
    )
    # Node X reaches Redis through a proxy: stopping it cuts X off, and X alone.
    proxy = Balancer("redis", [redis_server.port])
    await proxy.start()
    cut_off = dataclasses.replace(settings, redis_url=f"redis://127.0.0.1:{proxy.port}/0")
    env = {"BAND_PRESENCE_TTL": str(TTL), "BAND_PRESENCE_INTERVAL": str(INTERVAL)}
    try:
        async with serve(settings) as a:
            w = await make_world(a)
            async with serve_process(cut_off, **env) as x:
                await until(lambda: _sees_others(a, 1), "A sees X")
                await proxy.stop()
                cut = time.time()  # X's last renewal was before this
                # X keeps committing: the mention is in the database, its publish is lost.
                async with httpx.AsyncClient(base_url=x.url, timeout=30) as c:
                    r = await c.post(
                        f"/api/v1/me/chats/{w.room_id}/messages",
                        json={"message": {"content": f"@{w.agent_handle} while cut off"}},
                        headers={"X-API-Key": w.user_key},
                    )
                assert r.status_code == 201, r.text

                async def recorded() -> bool:
                    return await gap_rows(a) == 1

                await until(recorded, "X recorded its unannounced gap", within=TTL - 1)
                # An agent socket opened on A after X's last renewal and well past what X's
                # expiry alone says (1.5 intervals and the clock margin after it)...
                await asyncio.sleep(
                    max(0.0, cut + INTERVAL * 1.5 + GAP_CLOCK_MARGIN + 0.5 - time.time())
                )
                async with agent_socket(a.ws_url, w) as ws:
                    x.kill()  # ... and X dies before Redis is back for it.
                    # A finds X dead: the gap runs until then, the agent resyncs (and drains
                    # ``/next``, where the mention waits).
                    assert await _closed_with(ws, TTL + 15) == RESYNC_CLOSE_CODE

            async def deleted() -> bool:
                return await gap_rows(a) == 0

            await until(deleted, "the row is deleted once the others had time to read it")
    finally:
        await proxy.stop()
