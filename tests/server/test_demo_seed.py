"""The demo's person, agents and room are created once and reused (or repaired) on rerun."""

from __future__ import annotations

import stat
from pathlib import Path

from band_server.context import Platform
from band_server.demo_seed import AGENT_SPECS, ensure_demo_identities, load
from band_server.services.identity import accounts
from band_server.services.rooms import membership as rooms


async def _key_of(platform: Platform, key: str) -> str:
    async with platform.db.read() as session:
        return (await accounts.authenticate(session, key)).id


async def test_first_run_creates_everyone_in_one_room(platform: Platform, tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    made = await ensure_demo_identities(platform, path)
    assert [a.name for a in made.agents] == [name for name, _ in AGENT_SPECS]
    assert made.person.handle == "demo"
    assert made.agents[0].handle == "demo/helper"
    assert await _key_of(platform, made.person.api_key) == made.person.id
    for agent in made.agents:
        assert await _key_of(platform, agent.api_key) == agent.id
    async with platform.db.read() as session:
        member_ids = {m.id for m in await rooms.members(session, made.room_id)}
    assert member_ids == {made.person.id, *(a.id for a in made.agents)}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load(path) == made


async def test_rerun_reuses_identities_and_keys(platform: Platform, tmp_path: Path) -> None:
    path = tmp_path / "demo.json"
    first = await ensure_demo_identities(platform, path)
    second = await ensure_demo_identities(platform, path)
    assert second == first


async def test_lost_file_reuses_accounts_with_fresh_keys(
    platform: Platform, tmp_path: Path
) -> None:
    first = await ensure_demo_identities(platform, tmp_path / "demo.json")
    again = await ensure_demo_identities(platform, tmp_path / "other.json")
    assert again.person.id == first.person.id
    assert again.room_id == first.room_id
    assert [a.id for a in again.agents] == [a.id for a in first.agents]
    assert again.agents[0].api_key != first.agents[0].api_key
    assert await _key_of(platform, again.agents[0].api_key) == first.agents[0].id
    assert await _key_of(platform, again.person.api_key) == first.person.id
