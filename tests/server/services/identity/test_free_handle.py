"""A new handle made from a name or an email: the base itself when free, else the first free
numbered one (``-2`` for agents' handles, a bare number for people's)."""

from __future__ import annotations

from band_server.context import Platform
from band_server.services.identity import accounts
from band_server.store.models import Agent, User
from conftest import make_agent, make_user


async def test_agents_with_one_name_get_numbered_handles(platform: Platform) -> None:
    owner_id, _ = await make_user(platform, "ann")
    handles = [(await make_agent(platform, owner_id, "Helper"))[2] for _ in range(3)]
    assert handles == ["ann/helper", "ann/helper-2", "ann/helper-3"]


async def test_the_first_free_handle_of_a_base(platform: Platform) -> None:
    await make_user(platform, "bob")
    await make_user(platform, "bob3")
    async with platform.db.read() as session:
        assert await accounts.free_handle(session, User, "carol") == "carol"
        assert await accounts.free_handle(session, User, "bob") == "bob2"
        assert await accounts.free_handle(session, Agent, "bob") == "bob"
    await make_user(platform, "bob2")
    async with platform.db.read() as session:
        assert await accounts.free_handle(session, User, "bob") == "bob4"
        assert await accounts.free_handle(session, User, "bob", "-") == "bob-2"
