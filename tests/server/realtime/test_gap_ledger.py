"""The gap ledger: a node's unannounced fan-out gap is in the database from its first lost
publish until its note went out, and a node that finds it dead first makes the gap run until
then (not only until the dead node's last renewal). Fakes for the ledger and Redis; the
ledger's own rows on SQLite."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from band_server.context import Platform
from band_server.fanout.bus import Broadcast, gap_since, gap_until
from band_server.fanout.redis_bus import Publish, RedisBus
from band_server.realtime.dead_nodes import STALE_GAP, DeadNodes
from band_server.realtime.hub import Hub
from band_server.realtime.redis_presence import ClusterPresence, _NodeView
from band_server.services.fanout_gaps import GapRows

URL = "redis://127.0.0.1:1/0"


@dataclass
class Ledger:
    """A ``GapLedger`` in memory that logs each call; ``failing`` makes each call raise,
    ``held`` (while clear) makes each wait."""

    rows: dict[str, float] = field(default_factory=dict)
    calls: list[tuple[str, ...]] = field(default_factory=list)
    failing: bool = False
    held: asyncio.Event | None = None

    async def _enter(self, *call: str) -> None:
        self.calls.append(call)
        if self.held is not None:
            await self.held.wait()
        if self.failing:
            raise ConnectionError("the database is away")

    async def record(self, node: str, since: float) -> None:
        await self._enter("record", node)
        self.rows[node] = since

    async def clear(self, node: str) -> None:
        await self._enter("clear", node)
        self.rows.pop(node, None)

    async def since_of(self, node: str) -> float | None:
        await self._enter("since_of", node)
        return self.rows.get(node)

    async def sweep(self, before: float) -> None:
        await self._enter("sweep", repr(before))


def bus_with(ledger: Ledger) -> RedisBus:
    bus = RedisBus(URL, backoff_min=0.01, node_id="n1", gaps=ledger)
    bus._started = True
    return bus


async def settled(bus: RedisBus) -> None:
    """Until the bus's ledger task (if any) is done."""
    for _ in range(200):
        if bus._ledger is None or bus._ledger.done():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the ledger task did not end")


async def test_the_row_is_written_at_the_first_loss_only() -> None:
    ledger = Ledger()
    bus = bus_with(ledger)  # not subscribed: the note cannot go out
    bus._lost(100.0)
    bus._lost(101.0)
    await settled(bus)
    bus._lost(99.0)  # a loss found later, dated earlier: the row stands
    await settled(bus)
    assert ledger.calls == [("record", "n1")] and ledger.rows == {"n1": 100.0}
    assert bus.node_id == "n1" and bus._origin == '{"origin":"n1",'
    await bus.stop()


async def test_the_row_is_deleted_once_the_gap_is_announced() -> None:
    ledger = Ledger()
    bus = bus_with(ledger)
    notes: list[Broadcast] = []

    async def send(data: Publish) -> None:
        notes.append(Broadcast.from_wire(data[1].encode(), len(bus._mine)))

    bus._send = send  # type: ignore[method-assign]
    bus._lost(100.0)
    await settled(bus)
    assert ledger.rows == {"n1": 100.0}
    bus._subscribed.set()
    assert bus._announcer is not None
    await asyncio.wait_for(bus._announcer, 5)
    await settled(bus)
    assert [gap_since(n) for n in notes] == [100.0]
    assert ledger.calls == [("record", "n1"), ("clear", "n1")] and ledger.rows == {}
    # A later outage writes a row again.
    bus._subscribed.clear()
    bus._lost(200.0)
    await settled(bus)
    assert ledger.rows == {"n1": 200.0}
    await bus.stop()


async def test_a_loss_during_the_announcement_keeps_the_row_until_its_own_note() -> None:
    ledger = Ledger()
    bus = bus_with(ledger)
    sent: list[float | None] = []
    fail_next = asyncio.Event()

    async def send(data: Publish) -> None:
        if fail_next.is_set():
            raise ConnectionError("Redis is away again")
        sent.append(gap_since(Broadcast.from_wire(data[1].encode(), len(bus._mine))))
        if len(sent) == 1:
            bus._lost(time.time())  # lost while the first note goes out
            fail_next.set()  # and the second cannot go out yet

    bus._send = send  # type: ignore[method-assign]
    bus._lost(100.0)
    await settled(bus)
    bus._subscribed.set()
    await asyncio.sleep(0.3)  # the first note went out, the second keeps failing
    await settled(bus)
    assert sent == [100.0]
    assert ledger.calls == [("record", "n1")] and "n1" in ledger.rows
    fail_next.clear()
    assert bus._announcer is not None
    await asyncio.wait_for(bus._announcer, 5)
    await settled(bus)
    assert len(sent) == 2 and ledger.rows == {}
    assert ledger.calls == [("record", "n1"), ("clear", "n1")]
    await bus.stop()


async def test_a_failing_or_slow_ledger_never_holds_nor_fails_a_publish() -> None:
    ledger = Ledger(failing=True, held=asyncio.Event())
    bus = bus_with(ledger)
    delivered: list[Broadcast] = []

    async def deliver(b: Broadcast) -> None:
        delivered.append(b)

    async def send(data: Publish) -> None:
        raise ConnectionError("Redis is away")

    bus._deliver = deliver
    bus._send = send  # type: ignore[method-assign]
    post = Broadcast("chat_room:r1", "message_created", {"id": "m1"})
    # The ledger's write hangs (held): the publish returns at once all the same.
    await asyncio.wait_for(bus.publish(post), 1)
    await asyncio.wait_for(bus.publish(post), 1)
    assert delivered == [post, post]  # this node's own sockets got them
    assert ledger.calls == [("record", "n1")]  # one write under way, not one a loss
    ledger.held.set()  # type: ignore[union-attr]
    await settled(bus)  # it failed: logged, no row
    assert ledger.rows == {}
    await asyncio.wait_for(bus.publish(post), 1)  # the next loss tries again
    await settled(bus)
    assert ledger.calls == [("record", "n1"), ("record", "n1")]
    ledger.failing = False
    await asyncio.wait_for(bus.publish(post), 1)
    await settled(bus)
    assert "n1" in ledger.rows
    await bus.stop()


def presence_with(ledger: Ledger | None, got: list[Broadcast]) -> ClusterPresence:
    async def deliver(b: Broadcast) -> None:
        got.append(b)

    presence = ClusterPresence(
        Hub(), URL, ttl=10.0, interval=1.0, node_id="me", gaps=ledger, gap_grace=0.05
    )
    presence._deliver = deliver
    return presence


def renewed_at(at: float) -> _NodeView:
    view = _NodeView()
    view.expires_at = at + 10.0
    return view


async def test_a_dead_node_with_a_row_left_a_gap_until_it_was_found_dead() -> None:
    ledger, got = Ledger(rows={"dead": 990.0}), []
    presence = presence_with(ledger, got)
    assert presence.node_id == "me"
    before = time.time()
    await presence._node_died("dead", renewed_at(1000.0))
    after = time.time()
    [note] = got
    assert gap_since(note) == 990.0  # the first lost publish, before its last renewal
    until = gap_until(note)
    assert until is not None and before <= until <= after
    assert ledger.rows == {"dead": 990.0}  # the other nodes read it too ...
    await asyncio.sleep(0.2)
    assert ledger.rows == {} and ledger.calls[-1] == ("clear", "dead")  # ... then it goes
    await presence._dead.stop()


async def test_a_row_dated_after_the_last_renewal_starts_the_gap_at_the_renewal() -> None:
    ledger, got = Ledger(rows={"dead": 1003.0}), []
    presence = presence_with(ledger, got)
    await presence._node_died("dead", renewed_at(1000.0))
    assert gap_since(got[0]) == 1000.0
    await presence._dead.stop()


async def test_a_dead_node_without_a_row_left_a_gap_until_its_next_renewal() -> None:
    ledger, got = Ledger(rows={"other": 5.0}), []
    presence = presence_with(ledger, got)
    await presence._node_died("dead", renewed_at(1000.0))
    [note] = got
    assert (gap_since(note), gap_until(note)) == (1000.0, 1001.5)
    await asyncio.sleep(0.2)
    assert ledger.calls == [("since_of", "dead")] and ledger.rows == {"other": 5.0}


async def test_a_ledger_that_does_not_answer_errs_on_the_safe_side() -> None:
    ledger, got = Ledger(failing=True), []
    presence = presence_with(ledger, got)
    before = time.time()
    await presence._node_died("dead", renewed_at(1000.0))
    [note] = got
    until = gap_until(note)
    assert gap_since(note) == 1000.0 and until is not None and until >= before


async def test_rows_a_day_old_are_swept_at_start() -> None:
    ledger = Ledger()
    dead = DeadNodes(ttl=10.0, interval=1.0, gaps=ledger)
    before = time.time()
    dead.sweep_old()
    await asyncio.sleep(0.05)
    [(call, cut)] = ledger.calls
    assert call == "sweep" and before - STALE_GAP <= float(cut) <= time.time() - STALE_GAP
    await dead.stop()


async def test_the_rows_on_the_database(platform: Platform) -> None:
    rows = GapRows(platform.db)
    assert await rows.since_of("n1") is None
    await rows.record("n1", 100.0)
    await rows.record("n1", 100.5)  # written again (a write whose answer was lost)
    await rows.record("n2", time.time())
    assert await rows.since_of("n1") == 100.5
    await rows.sweep(time.time() - STALE_GAP)  # n1's is decades old
    assert await rows.since_of("n1") is None and await rows.since_of("n2") is not None
    await rows.clear("n2")
    await rows.clear("n3")  # none: nothing to do
    assert await rows.since_of("n2") is None
