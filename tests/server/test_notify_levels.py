"""A person's notification level per room: read for every room (with direct rooms marked),
chosen only for their own rooms and only from all, mentions or none."""

from __future__ import annotations

import httpx
from socket_testkit import make_room
from web_testkit import act, sign_in, token

from band_server.context import Platform
from conftest import Seeded, make_user


async def test_levels_are_read_and_chosen_for_the_persons_own_rooms(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    bob_id, _ = await make_user(platform, "bob")
    direct = await make_room(platform, seeded.user_id, bob_id)
    group = await make_room(platform, seeded.user_id, bob_id, seeded.agent_id)
    elsewhere = await make_room(platform, bob_id)
    await sign_in(client, seeded.user_key)
    levels = (await client.get("/notify", headers={"Accept": "application/json"})).json()
    assert levels["rooms"][direct] == {"level": "mentions", "direct": True, "title": "Test room"}
    assert levels["rooms"][group]["direct"] is False and elsewhere not in levels["rooms"]

    csrf = await token(client)
    chosen = await act(client, f"/rooms/{group}/notify", {"level": "none"}, csrf=csrf)
    assert chosen.status_code == 200 and chosen.json() == {"level": "none"}
    again = (await client.get("/notify", headers={"Accept": "application/json"})).json()
    assert again["rooms"][group]["level"] == "none"
    bad = await act(client, f"/rooms/{group}/notify", {"level": "loud"}, csrf=csrf)
    assert bad.status_code == 422 and "/level" in bad.json()["error"]["details"]
    other = await act(client, f"/rooms/{elsewhere}/notify", {"level": "all"}, csrf=csrf)
    assert other.status_code == 404
    forged = await client.post(
        f"/rooms/{group}/notify", data={"level": "all"}, headers={"Accept": "application/json"}
    )
    assert forged.status_code == 403
