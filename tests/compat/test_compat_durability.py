"""A 2xx means durable: `kill -9` right after the answer loses nothing (no official SDK needed).

The server runs as a real process on a real SQLite file; the crash is SIGKILL (no shutdown,
no flush); the restarted server on the same data folder must still serve every acknowledged
message, and the agent's `/next` must hand out the oldest one.
"""

from __future__ import annotations

from typing import Any

import pytest

from .compat_harness import World

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]


async def test_acknowledged_message_survives_kill_9(server_only_world: World) -> None:
    world = server_only_world
    r = await world.human.post_message(
        world.room, f"@{world.agent.handle} survive this", [world.agent.id]
    )
    assert r.status_code in (200, 201), f"POST messages: {r.status_code} {r.text}"
    message_id = r.json()["data"]["id"]
    world.server.kill9()  # immediately after the 2xx

    await world.server.start()
    r = await world.agent_api.next_message(world.room)
    assert r.status_code == 200, f"/next after restart: {r.status_code} {r.text}"
    assert r.json()["data"]["id"] == message_id


async def test_burst_of_acknowledged_messages_survives_kill_9(server_only_world: World) -> None:
    world = server_only_world
    acked: list[str] = []
    for i in range(8):
        r = await world.human.post_message(
            world.room, f"@{world.agent.handle} burst {i}", [world.agent.id]
        )
        assert r.status_code in (200, 201), f"POST messages #{i}: {r.status_code} {r.text}"
        acked.append(r.json()["data"]["id"])
    world.server.kill9()

    await world.server.start()
    msgs: list[dict[str, Any]] = await world.human.messages(world.room)
    stored = [m["id"] for m in msgs]
    assert [i for i in acked if i not in stored] == [], "acknowledged messages were lost"
    assert [i for i in stored if i in acked] == acked, "stored order differs from post order"
    r = await world.agent_api.next_message(world.room)
    assert r.status_code == 200, f"/next after restart: {r.status_code} {r.text}"
    assert r.json()["data"]["id"] == acked[0]
