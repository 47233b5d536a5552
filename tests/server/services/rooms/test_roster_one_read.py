"""The roster cache reads a missing room once, however many requests want it meanwhile.

Each request used to read on its own: when a busy room's entry expired under load, every post
arriving during the read read the room too, and the node's loop stalled (issue 35). Requests
now wait for the read under way, unless a membership change was announced since it began.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from socket_testkit import make_room

from band_server.context import Platform
from band_server.errors import NotFound
from band_server.services.rooms import roster_cache
from conftest import Seeded


class CountedReads:
    """Stands in for one of ``roster_cache``'s reads: counts the calls, each held (once it
    has read) until released."""

    def __init__(self, real: Callable[[Any, str], Awaitable[Any]]) -> None:
        self.reads = 0
        self.release = asyncio.Event()
        self.release.set()
        self._real = real

    async def __call__(self, session: Any, room_id: str) -> Any:
        self.reads += 1
        found = await self._real(session, room_id)
        await self.release.wait()  # other callers run meanwhile, as under load
        return found


def _count(monkeypatch: pytest.MonkeyPatch, name: str) -> CountedReads:
    reads = CountedReads(getattr(roster_cache, name))
    monkeypatch.setattr(roster_cache, name, reads)
    return reads


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> CountedReads:
    return _count(monkeypatch, "members")


async def _reads(counted: CountedReads, n: int) -> None:
    """Let the loop run until ``n`` reads began, and every caller started meanwhile ran."""
    for _ in range(100):
        await asyncio.sleep(0)
    assert counted.reads >= n


async def _first_caller_reading(
    platform: Platform, seeded: Seeded, counted: CountedReads
) -> tuple[roster_cache.RosterCache, str, asyncio.Task[roster_cache.RoomSnapshot]]:
    """A new room, an empty cache, and a first caller whose read is under way (held)."""
    room_id = await make_room(platform, seeded.user_id)
    cache = roster_cache.RosterCache()
    counted.release.clear()
    first = asyncio.create_task(cache.snapshot(platform.db, room_id))
    await _reads(counted, 1)
    return cache, room_id, first


async def test_callers_of_a_missing_room_share_one_read(
    platform: Platform, seeded: Seeded, counted: CountedReads
) -> None:
    room_id = await make_room(platform, seeded.user_id)
    cache = roster_cache.RosterCache()
    counted.release.clear()
    callers = [asyncio.create_task(cache.snapshot(platform.db, room_id)) for _ in range(20)]
    await _reads(counted, 1)
    counted.release.set()
    snaps = await asyncio.gather(*callers)
    assert counted.reads == 1
    assert all(s is snaps[0] for s in snaps)
    assert seeded.user_id in snaps[0].member_ids
    await cache.snapshot(platform.db, room_id)
    assert counted.reads == 1  # kept
    assert not cache._reading  # the finished read is forgotten


async def test_an_expired_room_is_read_once_under_load(
    platform: Platform, seeded: Seeded, counted: CountedReads
) -> None:
    room_id = await make_room(platform, seeded.user_id)
    cache = roster_cache.RosterCache(ttl=0.0)  # every entry expired at once
    await cache.snapshot(platform.db, room_id)
    assert counted.reads == 1
    counted.release.clear()
    callers = [asyncio.create_task(cache.snapshot(platform.db, room_id)) for _ in range(20)]
    await _reads(counted, 2)
    counted.release.set()
    await asyncio.gather(*callers)
    assert counted.reads == 2


async def test_a_caller_after_a_change_reads_again(
    platform: Platform, seeded: Seeded, counted: CountedReads
) -> None:
    cache, room_id, first = await _first_caller_reading(platform, seeded, counted)
    cache.invalidate(room_id)  # a membership change announced while the read runs
    second = asyncio.create_task(cache.snapshot(platform.db, room_id))
    await _reads(counted, 2)
    counted.release.set()
    await asyncio.gather(first, second)
    assert counted.reads == 2  # the second caller did not take the older read
    await cache.snapshot(platform.db, room_id)
    assert counted.reads == 2  # the newer read was kept, the older one used once


async def test_a_cancelled_caller_leaves_the_read_to_the_others(
    platform: Platform, seeded: Seeded, counted: CountedReads
) -> None:
    cache, room_id, first = await _first_caller_reading(platform, seeded, counted)
    second = asyncio.create_task(cache.snapshot(platform.db, room_id))
    await asyncio.sleep(0)
    first.cancel()
    counted.release.set()
    snap = await second
    assert first.cancelled()
    assert seeded.user_id in snap.member_ids
    assert counted.reads == 1


async def test_callers_of_an_unknown_room_share_the_404(
    platform: Platform, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = roster_cache.RosterCache()
    counted = _count(monkeypatch, "get_room")
    callers = [cache.snapshot(platform.db, "no-such-room") for _ in range(5)]
    outcomes = await asyncio.gather(*callers, return_exceptions=True)
    assert all(isinstance(o, NotFound) for o in outcomes)
    assert counted.reads == 1
    await asyncio.sleep(0)
    assert not cache._reading
    with pytest.raises(NotFound):
        await cache.snapshot(platform.db, "no-such-room")
    assert counted.reads == 2  # nothing kept


def test_a_fan_out_gap_drops_every_room_and_only_the_gap_notes_topic_is_one() -> None:
    from band_server.fanout.bus import Broadcast, gap_note

    cache = roster_cache.RosterCache()
    cache._rooms["r1"] = object()  # type: ignore[assignment]
    cache.observe(Broadcast("chat_room:r1", "message_created", {}, meta={"fanout_gap": 1.0}))
    assert "r1" in cache._rooms
    cache.observe(gap_note(1.0, 2.0))
    assert not cache._rooms
