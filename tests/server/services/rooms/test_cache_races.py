"""The node caches and a change announced while a read is in flight (issue 12).

A read that began before a membership change (or a revocation) and ends after its broadcast
arrived must not be kept: it would hold the old roster (or the revoked principal) for the
whole TTL. Found by the fault suite: a participant added on one node, a roster read on another
in flight at that moment, and posts mentioning the new participant refused for 30 s.
"""

from __future__ import annotations

from typing import Any

import pytest
from socket_testkit import make_room

from band_server.context import Platform
from band_server.services.identity.auth_cache import AuthCache
from band_server.services.identity.principals import Principal
from band_server.services.rooms import roster_cache
from conftest import Seeded


async def test_a_roster_read_across_an_invalidation_is_not_kept(
    platform: Platform, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    room_id = await make_room(platform, seeded.user_id)
    cache = roster_cache.RosterCache()
    real_members = roster_cache.members
    reads = 0

    async def members_then_change(session: Any, rid: str) -> Any:
        nonlocal reads
        reads += 1
        found = await real_members(session, rid)
        if reads == 1:
            cache.invalidate(rid)  # the broadcast of a change lands while this read runs
        return found

    monkeypatch.setattr(roster_cache, "members", members_then_change)
    await cache.snapshot(platform.db, room_id)
    await cache.snapshot(platform.db, room_id)
    assert reads == 2  # the first read was used once, not kept
    await cache.snapshot(platform.db, room_id)
    assert reads == 2  # the second one was kept


def test_a_principal_read_across_a_revocation_is_not_kept() -> None:
    cache = AuthCache()
    agent = Principal(kind="agent", id="a1", name="A", handle="a")
    before = cache.changes
    cache.forget("a1")  # its key was revoked while the read was in flight
    cache.put("key", agent, changes=before)
    assert cache.get("key") is None
    cache.put("key", agent, changes=cache.changes)
    assert cache.get("key") == agent
