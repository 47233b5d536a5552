"""Fan-out gap notes: what each source says the gap's end (``until``) is, the note's wire form,
and the hub's rule: only the agent sockets opened before the gap ended are told to resync,
each once."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from band_server.fanout.bus import (
    GAP_CLOCK_MARGIN,
    GAP_EVENT,
    GAP_TOPIC,
    Broadcast,
    gap_note,
    gap_since,
    gap_until,
)
from band_server.fanout.redis_bus import Publish, RedisBus
from band_server.realtime.hub import RESYNC_CLOSE_CODE, Hub
from band_server.realtime.redis_presence import ClusterPresence, _NodeView
from band_server.services.identity.principals import Principal


@dataclass
class Sock:
    id: str
    principal: Principal
    opened_at: float
    closes: list[int] = field(default_factory=list)
    claim_on_push: str | None = None

    def send_text(self, frame: str) -> None:
        pass

    def close(self, code: int) -> None:
        self.closes.append(code)


def agent(ident: str, opened_at: float) -> Sock:
    return Sock(ident, Principal("agent", f"ag-{ident}", "Agent", f"u/{ident}"), opened_at)


def person(ident: str, opened_at: float) -> Sock:
    return Sock(ident, Principal("user", f"u-{ident}", "Person", ident), opened_at)


def hub_with(*socks: Sock) -> Hub:
    hub = Hub()
    for sock in socks:
        hub.register(sock)
    return hub


def old_note(since: float) -> Broadcast:
    """A gap note as a node of the previous version publishes it: no ``until``."""
    return Broadcast(
        GAP_TOPIC, GAP_EVENT, {}, agents=frozenset(), users=False, meta={"fanout_gap": since}
    )


def test_only_agent_sockets_opened_before_the_gap_ended_resync() -> None:
    now = time.time()
    before, after = agent("a", now - 10), agent("b", now - 2)
    someone = person("p", now - 10)
    hub = hub_with(before, after, someone)
    hub.push(gap_note(now - 20, now - 5))
    assert before.closes == [RESYNC_CLOSE_CODE]
    assert after.closes == [] and someone.closes == []


def test_the_gap_end_has_a_margin_for_other_nodes_clocks() -> None:
    now = time.time()
    until = now - 5
    within = agent("a", until + GAP_CLOCK_MARGIN - 0.1)
    beyond = agent("b", until + GAP_CLOCK_MARGIN + 0.1)
    hub = hub_with(within, beyond)
    hub.push(gap_note(now - 20, until))
    assert within.closes == [RESYNC_CLOSE_CODE] and beyond.closes == []


def test_several_notes_close_each_socket_once_and_none_opened_after_the_gaps() -> None:
    now = time.time()
    a, b, c = agent("a", now - 10), agent("b", now - 5), agent("c", now - 1)
    hub = hub_with(a, b, c)
    assert hub.resync_agents(now - 20, now - 7) == 1  # a
    # A second gap that ended later: the sockets opened between the two ends, not a again.
    assert hub.resync_agents(now - 30, now - 3) == 1  # b
    # A gap over before either end: nothing.
    assert hub.resync_agents(now - 12, now - 8) == 0
    assert hub.resync_agents(now - 9, now - 3) == 0
    assert a.closes == [RESYNC_CLOSE_CODE] and b.closes == [RESYNC_CLOSE_CODE]
    assert c.closes == []


def test_a_note_of_an_earlier_node_ends_when_it_arrives() -> None:
    """A note without ``until`` (rolling upgrade): every agent socket opened before it came,
    that no note told already."""
    now = time.time()
    a, b = agent("a", now - 10), agent("b", now - 0.01)
    hub = hub_with(a, b)
    hub.push(gap_note(now - 20, now - 7))
    assert a.closes == [RESYNC_CLOSE_CODE] and b.closes == []
    hub.push(old_note(now - 20))
    assert a.closes == [RESYNC_CLOSE_CODE] and b.closes == [RESYNC_CLOSE_CODE]


def test_a_socket_closed_for_a_gap_is_not_told_again_while_it_closes() -> None:
    """Told by one note, still registered (its close is under way) when the next comes: not
    told twice; once it unregistered, its id is forgotten."""
    now = time.time()
    a = agent("a", now - 10)
    hub = hub_with(a)
    assert hub.resync_agents(now - 20, now + 100) == 1  # an end ahead of this node's clock
    assert hub.resync_agents(now - 20, now + 200) == 0
    hub.push(old_note(now - 20))
    assert a.closes == [RESYNC_CLOSE_CODE]
    hub.unregister(a)
    assert hub._resyncing == set()
    b = agent("b", time.time())  # opened after the notes came
    hub.register(b)
    hub.push(gap_note(now - 20, b.opened_at - 10))  # over before b opened
    assert b.closes == []
    hub.push(gap_note(now - 20, b.opened_at))  # b opened just before it ended
    assert b.closes == [RESYNC_CLOSE_CODE]


def test_a_gap_note_crosses_the_wire_with_both_ends() -> None:
    origin = '{"origin":"0123456789abcdef",'
    note = gap_note(1796598725.946, 1796598727.5)
    back = Broadcast.from_wire(note.to_wire(origin).encode(), len(origin))
    assert back == note
    assert gap_since(back) == 1796598725.946 and gap_until(back) == 1796598727.5
    old = Broadcast.from_wire(old_note(12.5).to_wire().encode())
    assert gap_since(old) == 12.5 and gap_until(old) is None
    # Not a gap note: neither end, whatever its meta says.
    other = Broadcast(
        "chat_room:r1", GAP_EVENT, {}, meta={"fanout_gap": 1.0, "fanout_gap_until": 2.0}
    )
    assert gap_since(other) is None and gap_until(other) is None


async def test_a_dead_node_s_gap_ends_when_it_would_have_renewed_its_lease() -> None:
    got: list[Broadcast] = []

    async def deliver(b: Broadcast) -> None:
        got.append(b)

    presence = ClusterPresence(Hub(), "redis://127.0.0.1:1/0", ttl=10.0, interval=1.0)
    presence._deliver = deliver
    view = _NodeView()
    view.expires_at = 1000.0 + 10.0  # renewed at 1000
    await presence._node_died("dead", view)
    [note] = got
    assert gap_since(note) == 1000.0
    assert gap_until(note) == 1000.0 + 1.5  # the next renewal, half an interval late at most


async def test_the_resubscribed_bus_s_gap_ends_when_its_subscription_was_live_again() -> None:
    got: list[Broadcast] = []

    async def deliver(b: Broadcast) -> None:
        got.append(b)

    bus = RedisBus("redis://127.0.0.1:1/0")
    bus._deliver = deliver
    await bus._resubscribed(100.0, 107.5)
    assert [(gap_since(b), gap_until(b)) for b in got] == [(100.0, 107.5)]


async def test_an_announced_gap_ends_when_the_loss_was_found_and_a_later_loss_gets_a_note() -> None:
    """The note of this node's lost publishes ends when the last loss was found, not when
    the note goes out (this node may resubscribe late); a publish lost while the note went
    out is not covered by it: one more note."""
    bus = RedisBus("redis://127.0.0.1:1/0", backoff_min=0.01)
    bus._started = True
    sent: list[tuple[Broadcast, float]] = []

    async def send(data: Publish) -> None:
        before = time.time()
        note = Broadcast.from_wire(data[1].encode(), len(bus._mine))
        if not sent:
            bus._lost(before)  # lost while the first note goes out
        sent.append((note, before))

    bus._send = send  # type: ignore[method-assign]
    lost_at = time.time() - 3
    found = time.time()
    bus._lost(lost_at)
    found_by = time.time()
    assert bus._announcer is not None
    await asyncio.sleep(0.2)  # this node subscribes again later
    bus._subscribed.set()
    await asyncio.wait_for(bus._announcer, 5)
    assert [gap_since(note) for note, _ in sent] == [lost_at, lost_at]
    first, second = (gap_until(note) for note, _ in sent)
    assert first is not None and found <= first <= found_by < sent[0][1] - 0.1
    assert second is not None and second >= sent[0][1]  # covers the loss during the first
    assert bus._unsent_since is None
