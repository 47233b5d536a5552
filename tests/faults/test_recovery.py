"""Issue 27: the three faults of one afternoon in one burst, with the default delivery lease.

Two nodes, A and B, on PostgreSQL and Redis. Ours (our SDK) and Official (band-sdk 6.0.1) hold
their sockets on B, with no other node to fail over to. A person posts 300 keyed mentions at
20/s (half to each agent) to A, retrying on B with the same key when A does not answer. During
the burst: A is killed with ``kill -9``; Redis stops for 5 s (on a slow machine until A waits
for it) and A is started again meanwhile, so A starts while Redis is away and serves once it is
back; then B is killed with ``kill -9`` and started again. New posts wait while A still boots
after Redis is back (a slow machine), so B always dies mid-burst.

Prints one row per SDK (``recovery.py``): acknowledged / lost / duplicated / unanswered /
answered twice / failed, when the agent was back on B, how soon each room that was waiting
answered again, and the time from the last fault to the last answer. Fails when anything
acknowledged is lost or posted twice, a mention is answered twice or left ``processing``, a
mention is unanswered (band-sdk's own give-ups excepted: "exceeded max retries", it holds such a
message failed for the life of its process whatever the platform does; the platform records it
failed), our SDK has a failed mention, or a room waits more than ``RESUMED_WITHIN`` after the
agent's reconnect.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from compat.compat_harness import wait_for

from .checker import settle, timeline
from .cluster import Cluster, NodeProcess, wait_healthy
from .load import Burst
from .recovery import AgentRecovery, RecoveryReport, SocketWatch, agent_recovery, given_up

ROOMS = 6
PER_ROOM = 50  # x 6 rooms = 300 mentions, each agent mentioned in every other post
RATE = 20.0  # posts per second: the burst lasts 15 s, more while both nodes refuse
REDIS_DOWN = 5.0
RESUMED_WITHIN = 10.0  # seconds from the agent's reconnect to an answer in each waiting room

pytestmark = [
    pytest.mark.slow,
    pytest.mark.faults,
    pytest.mark.timeout(600),
    pytest.mark.asyncio(loop_scope="module"),
]


async def test_node_a_killed_redis_away_node_b_killed_in_one_burst(pair: Cluster) -> None:
    """Nothing acknowledged is lost or doubled, no mention is answered twice or left
    unanswered, and every room that waited for an agent answers again within 10 s of that
    agent's reconnect to B, with our SDK and with band-sdk 6.0.1."""
    a, b = pair.nodes
    world = pair.world
    rooms = await pair.new_rooms(ROOMS)
    burst = Burst(
        rooms=rooms,
        poster=lambda _: world.people[0],
        agents=world.agents,
        node_urls=lambda: [a.url, b.url],
        per_room=PER_ROOM,
        rate=RATE,
        spread=False,
    )
    watches = {name: SocketWatch(bal, b.port) for name, bal in pair.balancers.items()}
    for watch in watches.values():
        watch.start()
    began = time.time()
    faults: dict[str, float] = {}

    def note(what: str) -> float:
        now = time.time()
        faults[what] = round(now - began, 2)
        return now

    burst_task = asyncio.create_task(burst.run())
    try:
        await burst.wait_acknowledged(burst.total // 10)
        a.kill9()
        note("A killed")
        pair.redis.stop()
        note("Redis stopped")
        a_back = asyncio.create_task(a.start(within=120))  # A starts while Redis is away
        await asyncio.sleep(REDIS_DOWN)
        await wait_for(  # a loaded machine boots slowly: Redis stays away until A waits for it
            lambda: _waiting_for_redis(a), within=90, what="node A's 503 naming Redis"
        )
        pair.redis.start()
        note("Redis back")
        if not a_back.done():  # a slow boot: posts wait for it, so B dies mid-burst anyway
            burst.hold()
            try:
                await a_back
            finally:
                burst.release()
        await a_back
        note("A back")
        await burst.wait_acknowledged(burst.total * 6 // 10, within=90)
        b.kill9()
        last_fault = note("B killed")
        await b.start(within=120)
        note("B back")
    finally:
        result = await burst_task
    await wait_healthy(pair.nodes)
    report = await settle(
        "three-faults",
        result,
        a.url,
        world.people[0].key,
        rooms,
        {x.id for x in world.agents},
        stall=60.0,
        cap=240.0,
    )
    for watch in watches.values():
        await watch.stop()
    histories = {}
    async with httpx.AsyncClient(headers={"X-API-Key": world.people[0].key}, timeout=30) as http:
        for room in rooms:
            histories[room] = await timeline(http, a.url, room)
    rows: list[AgentRecovery] = []
    for creds in world.agents:
        name = creds.name.lower()
        rows.append(
            agent_recovery(
                creds.name,
                pair.specs[name].sdk,
                creds.id,
                result,
                histories,
                last_fault,
                watches[name].first_after(last_fault),
            )
        )
    gave_up = {  # band-sdk holds these failed for the life of its process: no platform can help
        m for p in pair.processes if p.name.startswith("official.") for m in given_up(p.log_path)
    }
    for row in rows:
        row.given_up = len(set(row.unanswered_ids) & gave_up)
    recovery = RecoveryReport("three-faults-recovery", rows, faults)
    recovery.notes.update(
        checker=report.line(),
        burst_seconds=round(result.seconds, 2),
        settle_seconds=report.settle_seconds,
        post_retries=result.retries,
        post_latency_ms=result.latency_ms(),
        reconnects={n: [round(t - began, 2) for t in w.opened] for n, w in watches.items()},
    )
    path = recovery.write()
    print(
        f"\n{report.line()}\nfaults (s into the burst): {faults}\n{recovery.table()}  "
        f"({path.name})",
        flush=True,
    )
    detail = f"{recovery.table()}\n{report.problems}\n{pair.diagnostics()}"
    assert result.refused == [] and result.unacknowledged == [], detail
    assert report.lost == 0 and report.order_violations == 0, detail
    assert report.processing == 0, detail  # nothing left claimed: no room waits for the lease
    for row in rows:
        assert (row.lost, row.duplicated, row.answered_twice) == (0, 0, 0), detail
        if row.sdk == "ours":
            assert row.unanswered == row.failed == 0, detail
        else:  # every mention answered, but those band-sdk gave up itself (visibly failed)
            assert row.unanswered == row.given_up, detail
        assert row.reconnect_s is not None, detail
        assert row.room_resumed_s is None or row.room_resumed_s <= RESUMED_WITHIN, detail


async def _waiting_for_redis(node: NodeProcess) -> bool:
    """Whether the node listens and answers ``/healthz`` 503 naming Redis (it waits for it)."""
    try:
        async with httpx.AsyncClient(timeout=2) as client:
            r = await client.get(f"{node.url}/healthz")
    except httpx.TransportError:
        return False
    return r.status_code == 503 and r.json()["error"]["message"] == "unreachable: redis"
