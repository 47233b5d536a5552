"""Issue 12's scenarios: one fault each, in the middle of a burst of 504 mentions.

Each scenario prints one line (acknowledged / found / lost / duplicated, ...) and writes
``bench/results/faults-<scenario>.json``; it fails when anything acknowledged is lost, a
mention is answered twice or neither answered nor visibly failed, something is left
``processing``, or a room's order is broken. They share one deployment (see conftest.py) and
run in this order; each starts from `Cluster.restore`.
"""

from __future__ import annotations

import asyncio

import pytest

from .cluster import Cluster
from .load import Burst
from .scenario import run_scenario

pytestmark = [
    pytest.mark.slow,
    pytest.mark.faults,
    pytest.mark.timeout(300),
    pytest.mark.asyncio(loop_scope="module"),
]


async def test_kill_9_of_a_node(cluster: Cluster) -> None:
    """Node 0 dies mid-burst: Ours1 (at home there) fails over through its balancer, the
    people's posts to node 0 are retried on the others with the same Idempotency-Key."""
    victim = cluster.nodes[0]

    async def kill_node_0(cluster: Cluster, burst: Burst) -> None:
        await burst.wait_acknowledged(burst.total // 3)
        assert cluster.balancers["ours1"].on_backend(victim.port, websocket=True) == 1
        victim.kill9()

    await run_scenario(cluster, "node-kill-9", kill_node_0)
    assert cluster.balancers["ours1"].on_backend(victim.port) == 0
    assert cluster.balancers["ours1"].on_backend(cluster.nodes[1].port, websocket=True) == 1


async def test_redis_stopped_for_10_s(cluster: Cluster) -> None:
    """Redis goes away for 10 s mid-burst: posts still commit (the fan-out is after the
    commit), pushes are lost; once Redis is back each node announces the gap and its agents
    reconnect and drain /next."""

    async def outage(cluster: Cluster, burst: Burst) -> None:
        await burst.wait_acknowledged(burst.total // 4)
        cluster.redis.stop()
        await asyncio.sleep(10)
        cluster.redis.start()

    await run_scenario(cluster, "redis-down-10s", outage)
