"""Cluster presence's cycle against a real Redis: what an idle cluster reads, and a node's
hash that vanished between two cycles (Redis restarted empty, unnoticed)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from band_server.fanout.bus import Broadcast
from band_server.fanout.resp import RespConnection, open_connection
from band_server.realtime.hub import Hub
from band_server.realtime.redis_presence import ClusterPresence, node_key
from band_server.services.identity.principals import Principal

from .real_services import RedisServer
from .test_presence import until

INTERVAL = 0.1


@dataclass
class AgentSocket:
    id: str
    principal: Principal

    def send_text(self, frame: str) -> None:
        pass

    def close(self, code: int) -> None:
        pass


async def _ignore(broadcast: Broadcast) -> None:
    return None


@asynccontextmanager
async def two_nodes(url: str) -> AsyncIterator[tuple[ClusterPresence, Hub, ClusterPresence]]:
    """Node A's presence; node B's hub and presence."""
    hub_a, hub_b = Hub(), Hub()
    a = ClusterPresence(hub_a, url, ttl=2.0, interval=INTERVAL)
    b = ClusterPresence(hub_b, url, ttl=2.0, interval=INTERVAL)
    await a.start(_ignore)
    await b.start(_ignore)
    try:
        yield a, hub_b, b
    finally:
        await a.stop()
        await b.stop()


async def hgetall_calls(admin: RespConnection) -> int:
    info = (await admin.command("INFO", "commandstats")).decode()
    for line in info.splitlines():
        if line.startswith("cmdstat_hgetall:"):
            return int(line.split(":")[1].split(",")[0].split("=")[1])
    return 0


async def test_an_idle_cluster_reloads_no_hash_and_a_change_is_read(
    redis_server: RedisServer,
) -> None:
    """A node's version moves only when its counts do: while nothing changes the others
    read its version field each cycle, never its whole hash again."""
    admin = await open_connection(redis_server.url)
    try:
        async with two_nodes(redis_server.url) as (a, hub_b, _):
            hub_b.register(AgentSocket("c1", Principal("agent", "ag-1", "Agent", "u/agent")))

            async def online_on_a() -> bool:
                return a.is_online("ag-1")

            await until(online_on_a, "B's socket seen on A")
            await asyncio.sleep(3 * INTERVAL)
            await admin.command("CONFIG", "RESETSTAT")
            await asyncio.sleep(8 * INTERVAL)  # several cycles of both nodes, nothing changed
            assert await hgetall_calls(admin) == 0
            hub_b.register(AgentSocket("c2", Principal("agent", "ag-2", "Agent", "u/agent2")))

            async def second_on_a() -> bool:
                return a.is_online("ag-2")

            await until(second_on_a, "B's second socket seen on A")
            assert await hgetall_calls(admin) >= 1
    finally:
        admin.close()


async def test_a_hash_that_vanished_between_cycles_is_rewritten(
    redis_server: RedisServer,
) -> None:
    """Redis lost node B's hash (restarted empty between two of its cycles, no error seen):
    B notices on its next cycle (the version field was new) and writes every socket again
    under a new version, which A then reads."""
    admin = await open_connection(redis_server.url)
    try:
        async with two_nodes(redis_server.url) as (a, hub_b, b):
            hub_b.register(AgentSocket("c1", Principal("agent", "ag-1", "Agent", "u/agent")))

            async def written() -> bool:
                return bool(await admin.command("HEXISTS", node_key(b.node_id), "ag-1"))

            await until(written, "B's socket written")
            await admin.command("DEL", node_key(b.node_id))
            await until(written, "B's socket written again")

            async def online_on_a() -> bool:
                return a.is_online("ag-1")

            await until(online_on_a, "B's socket seen on A again")
    finally:
        admin.close()
