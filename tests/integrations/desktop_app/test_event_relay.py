"""band.integrations.desktop_app.event_relay on our platform: two room view processes of one
agent share one WebSocket (one leads, one follows over the Unix socket), a message in the
room wakes both, the leader's exit hands the socket to the follower, and a follower that
stops reading is dropped instead of stalling the others."""

from __future__ import annotations

import asyncio

import pytest

from band.integrations.desktop_app.event_relay import (
    DesktopRoomEventRelay,
    RelayRole,
    RelayStatus,
    RoomEventBroker,
    fanout,
)
from conftest import LiveServer

from .room_world import make_room_world, short_state_dir


async def until(check: object, seconds: float = 10) -> None:
    async with asyncio.timeout(seconds):
        while not check():  # type: ignore[operator]  # noqa: ASYNC110 - polls a status field
            await asyncio.sleep(0.05)


async def test_one_socket_wakes_every_process_and_leadership_moves_on(
    live_server: LiveServer,
) -> None:
    world = await make_room_world(live_server)
    state = short_state_dir()

    def relay() -> DesktopRoomEventRelay:
        return DesktopRoomEventRelay(
            agent_id=world.agent_id,
            agent_key=world.agent_key,
            rest_url=live_server.url,
            ws_url=live_server.ws_url,
            state_dir=state,
        )

    leader, follower = relay(), relay()
    try:
        await leader.start()
        await follower.start()
        assert (leader.status.role, follower.status.role) == (RelayRole.LEADER, RelayRole.FOLLOWER)
        assert leader.status.websocket_connected and leader.status.live
        assert follower.status.live and follower.status.warning == ""
        assert world.room_id in leader.status.rooms_added
        await until(lambda: world.room_id in follower.status.rooms_added)

        seen = {r: r.events.version(world.room_id) for r in (leader, follower)}
        waits = [
            asyncio.create_task(
                r.events.wait(world.room_id, after_version=seen[r], timeout_seconds=10)
            )
            for r in (leader, follower)
        ]
        await world.say("are you both listening?")
        assert await asyncio.gather(*waits) == [True, True]
        assert follower.status.events_received >= 1

        await leader.stop()
        await until(lambda: follower.status.role is RelayRole.LEADER)
        assert follower.status.websocket_connected
        version = follower.events.version(world.room_id)
        wait = asyncio.create_task(
            follower.events.wait(world.room_id, after_version=version, timeout_seconds=10)
        )
        await world.say("still there?")
        assert await wait is True
    finally:
        await leader.stop()
        await follower.stop()
        await world.close()


async def test_a_wait_ends_on_its_rooms_event_or_times_out() -> None:
    broker = RoomEventBroker()
    assert await broker.wait("r1", after_version=0, timeout_seconds=1) is False
    waiting = asyncio.create_task(broker.wait("r1", after_version=0, timeout_seconds=5))
    await broker.publish("r2")
    await asyncio.sleep(0.05)
    assert not waiting.done()
    await broker.publish("r1")
    assert await waiting is True
    assert broker.version("r1") == 1


async def test_a_follower_that_stops_reading_is_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from band.integrations.desktop_app import event_relay

    monkeypatch.setattr(event_relay.RELAY_TUNING, "band_relay_fanout_timeout_s", 0.2)
    received: list[bytes] = []

    async def reader_side(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        received.append(await reader.readline())

    async def stuck_side(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(30)  # never reads

    state = short_state_dir()
    servers = [
        await asyncio.start_unix_server(reader_side, path=str(state / "ok.sock")),
        await asyncio.start_unix_server(stuck_side, path=str(state / "stuck.sock")),
    ]
    _, ok = await asyncio.open_unix_connection(str(state / "ok.sock"))
    _, stuck = await asyncio.open_unix_connection(str(state / "stuck.sock"))
    stuck.transport.set_write_buffer_limits(high=1)
    clients = {ok, stuck}
    big = b"event " + b"x" * 8_000_000 + b"\n"
    await fanout({ok}, b"event room-1\n")
    await fanout(clients, big)
    assert stuck not in clients
    await until(lambda: received)
    assert received[0] == b"event room-1\n"
    for server in servers:
        server.close()
    ok.close()


def test_the_status_says_when_events_are_not_live() -> None:
    status = RelayStatus(last_error="WebSocket lost: superseded")
    assert not status.live
    assert "WebSocket is down (WebSocket lost: superseded)" in status.warning
    assert RelayStatus(role=RelayRole.FOLLOWER).warning == ""
