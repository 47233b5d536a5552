"""The key cache: found by the key's digest, dropped at once when a principal's keys end."""

from __future__ import annotations

from band_server.fanout.bus import Broadcast
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
