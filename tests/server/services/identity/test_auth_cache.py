"""The key cache: found by the key's digest, dropped at once when a principal's keys end."""

from __future__ import annotations

import asyncio

from band_server.fanout.bus import Broadcast, gap_note
from band_server.realtime.socket import supersede_broadcast
from band_server.services.identity.auth_cache import AuthCache
from band_server.services.identity.principals import Principal

AGENT = Principal("agent", "a1", "Echo", "echo", owner_id="u1")
OTHER = Principal("agent", "a2", "Other", "other", owner_id="u1")


def closing(principal_id: str) -> Broadcast:
    return Broadcast(
        topic=f"agent_control:{principal_id}",
        event="supersede",
        payload={},
        meta={"close_principal": principal_id, "close_code": 1008},
    )


def test_a_cached_key_is_found_and_no_plain_key_is_kept() -> None:
    cache = AuthCache()
    cache.put("band_a_secret-one", AGENT)
    assert cache.get("band_a_secret-one") == AGENT
    assert cache.get("band_a_secret-two") is None
    assert "band_a_secret-one" not in repr(cache.__dict__)


def test_a_revoking_broadcast_drops_every_key_of_that_principal_only() -> None:
    cache = AuthCache()
    cache.put("key-1", AGENT)
    cache.put("key-2", AGENT)
    cache.put("key-3", OTHER)
    cache.observe(closing(AGENT.id))
    assert cache.get("key-1") is None
    assert cache.get("key-2") is None
    assert cache.get("key-3") == OTHER
    assert len(cache) == 1


def test_a_new_socket_superseding_the_old_one_keeps_the_agents_keys() -> None:
    cache = AuthCache()
    cache.put("key-1", AGENT)
    cache.observe(supersede_broadcast(AGENT.id, "conn-new"))
    assert cache.get("key-1") == AGENT


def test_entries_expire_and_the_cache_stays_bounded() -> None:
    cache = AuthCache(ttl=-1.0)
    cache.put("key-1", AGENT)
    assert cache.get("key-1") is None
    assert len(cache) == 0
    bounded = AuthCache(max_entries=3)
    for i in range(10):
        bounded.put(f"key-{i}", AGENT)
    assert len(bounded) <= 3
    assert bounded.get("key-9") == AGENT
    bounded.forget(AGENT.id)
    assert len(bounded) == 0


class HeldReads:
    """A key lookup that counts its calls and waits until released (others run meanwhile)."""

    def __init__(self, answer: Principal | Exception = AGENT) -> None:
        self.reads = 0
        self.answer = answer
        self.release = asyncio.Event()

    async def __call__(self) -> Principal:
        self.reads += 1
        await self.release.wait()
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


async def test_callers_of_a_missing_key_share_one_lookup_and_it_is_kept() -> None:
    cache, read = AuthCache(), HeldReads()
    callers = [asyncio.create_task(cache.read_through("key-1", read)) for _ in range(20)]
    await _settle()
    read.release.set()
    assert await asyncio.gather(*callers) == [AGENT] * 20
    assert read.reads == 1
    assert cache.get("key-1") == AGENT


async def test_a_revocation_during_the_lookup_makes_later_callers_look_up_again() -> None:
    cache, read = AuthCache(), HeldReads()
    first = asyncio.create_task(cache.read_through("key-1", read))
    await _settle()
    cache.forget(AGENT.id)  # the lookup under way may have read the key before it was revoked
    second = asyncio.create_task(cache.read_through("key-1", read))
    await _settle()
    read.release.set()
    await asyncio.gather(first, second)
    assert read.reads == 2
    assert cache.get("key-1") == AGENT  # kept from the second lookup, begun after the forget


async def test_a_wrong_key_is_refused_to_every_caller_and_nothing_is_kept() -> None:
    cache, read = AuthCache(), HeldReads(LookupError("no such key"))
    callers = [asyncio.create_task(cache.read_through("key-1", read)) for _ in range(5)]
    await _settle()
    read.release.set()
    outcomes = await asyncio.gather(*callers, return_exceptions=True)
    assert all(isinstance(o, LookupError) for o in outcomes)
    assert read.reads == 1
    assert cache.get("key-1") is None
    read.answer, read.release = AGENT, asyncio.Event()
    read.release.set()
    assert await cache.read_through("key-1", read) == AGENT  # a later caller looks up again
    assert read.reads == 2


async def test_a_cancelled_caller_leaves_the_lookup_to_the_others() -> None:
    cache, read = AuthCache(), HeldReads()
    gone = asyncio.create_task(cache.read_through("key-1", read))
    staying = asyncio.create_task(cache.read_through("key-1", read))
    await _settle()
    gone.cancel()
    await _settle()
    read.release.set()
    assert await staying == AGENT
    assert gone.cancelled()
    assert read.reads == 1


def test_a_fan_out_gap_drops_every_key_and_only_the_gap_notes_topic_is_one() -> None:
    cache = AuthCache()
    cache.put("key-1", AGENT)
    # The gap's meta on another topic is no gap note: nothing is dropped.
    cache.observe(Broadcast("chat_room:r1", "fanout_gap", {}, meta={"fanout_gap": 1.0}))
    assert cache.get("key-1") == AGENT and cache.changes == 0
    cache.observe(gap_note(1.0, 2.0))
    assert cache.get("key-1") is None and cache.changes == 1
