"""A node whose event loop is slow keeps its presence lease; one whose loop is wedged past the
stall limit, or that is stopped, does not (real Redis, node A on a loop of its own in a
thread, so blocking it leaves node B's loop free to judge)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from band_server.fanout.bus import Broadcast
from band_server.realtime.hub import Hub
from band_server.realtime.redis_presence import ClusterPresence
from band_server.services.identity.principals import Principal

from .real_services import RedisServer
from .test_presence import until
from .test_presence_cycle import AgentSocket

TTL = 1.0
INTERVAL = 0.1
STALL = 4.0


class Gaps:
    """What node B's presence delivered through the bus: the gaps of nodes it saw die."""

    def __init__(self) -> None:
        self.seen: list[Broadcast] = []

    async def __call__(self, broadcast: Broadcast) -> None:
        self.seen.append(broadcast)


@contextmanager
def node_on_its_own_loop(url: str) -> Iterator[asyncio.AbstractEventLoop]:
    """Node A (one socket, of agent ``ag-a``), started on a loop running in a thread of its own."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    hub = Hub()
    node = ClusterPresence(hub, url, ttl=TTL, interval=INTERVAL, stall=STALL)
    asyncio.run_coroutine_threadsafe(node.start(Gaps()), loop).result(timeout=10)
    hub.register(AgentSocket("c1", Principal("agent", "ag-a", "Agent", "u/agent-a")))
    try:
        yield loop
    finally:
        asyncio.run_coroutine_threadsafe(node.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def block(loop: asyncio.AbstractEventLoop, seconds: float) -> threading.Event:
    """Hold ``loop`` busy for ``seconds`` (a CPU-starved or collecting node); set when over."""
    done = threading.Event()

    def busy() -> None:
        time.sleep(seconds)
        done.set()

    loop.call_soon_threadsafe(busy)
    return done


async def test_a_slow_node_keeps_its_lease_and_a_wedged_one_loses_it(
    redis_server: RedisServer,
) -> None:
    gaps = Gaps()
    b = ClusterPresence(Hub(), redis_server.url, ttl=TTL, interval=INTERVAL, stall=STALL)
    await b.start(gaps)
    try:
        with node_on_its_own_loop(redis_server.url) as loop:

            async def a_seen() -> bool:
                return b.is_online("ag-a")

            await until(a_seen, "A's socket seen on B")
            # Three ttls without the loop coming round, within the stall limit: still alive.
            done = block(loop, 3 * TTL)
            while not done.is_set():
                assert b.is_online("ag-a"), "B took a slow node for dead"
                await asyncio.sleep(INTERVAL)
            assert gaps.seen == []
            # Past the stall limit the lease lapses: B sees A die and declares its gap.
            done = block(loop, STALL + 3 * TTL)

            async def a_gone() -> bool:
                return not b.is_online("ag-a") and len(gaps.seen) == 1

            await until(a_gone, "A's lease lapsed once its loop was wedged", within=STALL + 10)
            await asyncio.to_thread(done.wait, 30)
            # Once its loop comes round again the node writes itself back in.
            await until(a_seen, "A back once its loop runs")
            assert b.cluster_view().other_nodes == 1
    finally:
        await b.stop()


async def test_a_stopped_node_is_not_brought_back_by_its_keeper(
    redis_server: RedisServer,
) -> None:
    b = ClusterPresence(Hub(), redis_server.url, ttl=TTL, interval=INTERVAL, stall=STALL)
    await b.start(Gaps())
    try:
        with node_on_its_own_loop(redis_server.url) as _:

            async def a_seen() -> bool:
                return b.is_online("ag-a")

            await until(a_seen, "A's socket seen on B")

        async def a_left() -> bool:
            return not b.is_online("ag-a") and b.cluster_view().other_nodes == 0

        await until(a_left, "A left")
        await asyncio.sleep(5 * INTERVAL)
        assert not b.is_online("ag-a")
        assert b.cluster_view().other_nodes == 0
    finally:
        await b.stop()
