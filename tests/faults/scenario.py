"""One scenario: a burst of mentions with a fault injected during it, then the verdict."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from .checker import Report, settle
from .cluster import Cluster, wait_healthy
from .load import Burst, BurstResult

ROOMS = 8
PER_ROOM = 63  # x 8 rooms = 504 mentions
RATE = 30.0  # posts per second, all rooms together: the burst lasts about 17 s

Fault = Callable[[Cluster, Burst], Awaitable[None]]


async def run_scenario(
    cluster: Cluster,
    name: str,
    fault: Fault,
    *,
    per_room: int = PER_ROOM,
    rate: float = RATE,
    settle_stall: float = 150.0,
    client_reruns: Callable[[], set[str]] | None = None,
    dead_node_posts: Callable[[BurstResult], set[str]] | None = None,
) -> Report:
    """Burst and fault at once; once both are over and the agents are back, judge the rooms.
    Prints one line of figures and writes them to ``bench/results/faults-<name>.json``."""
    world = cluster.world
    rooms = await cluster.new_rooms(ROOMS)
    burst = Burst(
        rooms=rooms,
        poster=world.poster,
        agents=world.agents,
        node_urls=cluster.node_urls,
        per_room=per_room,
        rate=rate,
    )
    started = time.monotonic()
    burst_task = asyncio.create_task(burst.run())
    try:
        await fault(cluster, burst)
    finally:
        result = await burst_task
    await wait_healthy(cluster.live_nodes())
    report = await settle(
        name,
        result,
        cluster.node_urls()[0],
        world.people[0].key,
        rooms,
        {a.id for a in world.agents},
        stall=settle_stall,
    )
    report.notes.update(
        seconds_total=round(time.monotonic() - started, 2),
        nodes=[n.name for n in cluster.nodes],
        live_nodes=[n.name for n in cluster.live_nodes()],
        agent_runs=[p.name for p in cluster.processes],
        balancer_cuts={b.name: b.cuts for b in cluster.balancers.values()},
        refused=result.refused[:5],
        post_latency_ms=result.latency_ms(),
        acknowledged_by_node={
            n.name: sum(1 for a in result.acks if a.node == n.url) for n in cluster.nodes
        },
        setup_seconds=cluster.timings,
    )
    if client_reruns is not None:
        report.excuse_reruns(client_reruns())
    if dead_node_posts is not None:
        report.excuse_unannounced(dead_node_posts(result))
    names = {a.id: a.name for a in world.agents}
    report.per_agent = {names.get(k, k): v for k, v in report.per_agent.items()}
    path = report.write()
    print(f"\n{report.line()}  ({path.name})", flush=True)
    assert result.refused == [], f"posts refused: {result.refused[:5]}"
    assert report.ok, f"{report.line()}\n{report.problems}\n{cluster.diagnostics()}"
    return report
