"""The Phoenix v2 client against a tiny fake server: framing, joins, heartbeat, reconnect."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from band.platform.phoenix import Frame, decode_frame, encode_frame, parse_upgrade_rejection
from band.platform.socket import (
    JoinError,
    PhoenixSocket,
    SocketTerminated,
    SocketTimings,
    UpgradeRejected,
    build_socket_url,
)
from band.platform.socket_policy import ReconnectPolicy, equal_jitter
from band.testing.phoenix_server import FakePhoenixServer, JoinOutcome, fake_phoenix_server

FAST = SocketTimings(
    heartbeat_interval=0.1,
    heartbeat_timeout=0.3,
    join_timeout=1.0,
    backoff_base=0.02,
    backoff_cap=0.1,
    rapid_lifetime=0.0,
    initial_retry_delays=(0.05, 0.05),
)


@pytest.fixture
async def server() -> AsyncIterator[FakePhoenixServer]:
    async with fake_phoenix_server() as fake:
        yield fake


def make_socket(
    server: FakePhoenixServer, **kw: Any
) -> tuple[PhoenixSocket, list[tuple[str, str]]]:
    pushes: list[tuple[str, str]] = []
    sock = PhoenixSocket(
        server.url,
        headers={"x-api-key": "k1"},
        params={"agent_id": "A"},
        on_push=lambda topic, event, payload: pushes.append((topic, event)),
        timings=kw.pop("timings", FAST),
        **kw,
    )
    return sock, pushes


def test_frames_round_trip_and_coerce_numeric_refs() -> None:
    frame = Frame("1", "2", "chat_room:r", "phx_join", {})
    assert decode_frame(encode_frame(frame)) == frame
    assert decode_frame('[3, 4, "t", "e", [1]]') == Frame("3", "4", "t", "e", {})


def test_url_puts_vsn_first_and_strips_credentials() -> None:
    url = build_socket_url("ws://h/api/v1/socket/websocket?api_key=x&vsn=1.0.0", {"agent_id": "A"})
    assert url == "ws://h/api/v1/socket/websocket?vsn=2.0.0&agent_id=A"


def test_upgrade_rejection_reads_error_body_and_retry_after() -> None:
    body = b'{"error": {"code": "connection_conflict", "message": "busy", "request_id": null}}'
    conflict = parse_upgrade_rejection(409, body)
    assert conflict.terminal and conflict.is_conflict
    limited = parse_upgrade_rejection(429, b"{}", "7")
    assert not limited.terminal and limited.retry_after == 7.0
    assert parse_upgrade_rejection(401, body).code is None


def test_backoff_is_exponential_with_equal_jitter_and_capped() -> None:
    for attempt, (low, high) in enumerate([(0.25, 0.5), (0.5, 1.0), (1.0, 2.0)]):
        assert low <= equal_jitter(0.5, attempt, 30.0) <= high
    assert 15.0 <= equal_jitter(0.5, 12, 30.0) <= 30.0
    policy = ReconnectPolicy(SocketTimings(rapid_limit=3))
    assert policy.connection_ended(None, 0.1) and policy.next_delay() >= 2.0
    assert policy.connection_ended(None, 0.1) and policy.next_delay() >= 10.0
    assert not policy.connection_ended(None, 0.1)


async def test_connects_with_header_and_joins_with_join_ref_equal_ref(
    server: FakePhoenixServer,
) -> None:
    sock, _ = make_socket(server, initial_params={"on_conflict": "reject"})
    await sock.connect()
    await sock.join("agent_control:A")
    await sock.join("agent_rooms:A")
    assert server.upgrades[0].query == {"vsn": "2.0.0", "agent_id": "A", "on_conflict": "reject"}
    assert server.upgrades[0].headers["x-api-key"] == "k1"
    assert "api_key" not in server.upgrades[0].query
    assert [f[:4] for f in server.sent("phx_join")] == [
        ["1", "1", "agent_control:A", "phx_join"],
        ["2", "2", "agent_rooms:A", "phx_join"],
    ]
    await sock.close()


async def test_refused_join_raises_and_forgets_the_topic(server: FakePhoenixServer) -> None:
    server.script_joins("chat_room:x", JoinOutcome.REJECTED)
    sock, _ = make_socket(server)
    await sock.connect()
    with pytest.raises(JoinError, match="rejected by fake server"):
        await sock.join("chat_room:x")
    assert "chat_room:x" not in sock.topics
    await sock.close()


async def test_pushes_with_a_stale_or_null_join_ref_are_dropped(server: FakePhoenixServer) -> None:
    sock, pushes = make_socket(server)
    await sock.connect()
    await sock.join("chat_room:r")
    await server.push("chat_room:r", "message_created", {"id": "null"}, join_ref=None)
    await server.push("chat_room:r", "message_created", {"id": "old"}, join_ref="99")
    await server.push("chat_room:other", "message_created", {"id": "unjoined"})
    await server.push("chat_room:r", "message_created", {"id": "ok"})
    await asyncio.sleep(0.1)
    assert pushes == [("chat_room:r", "message_created")]
    await sock.close()


async def test_heartbeats_are_sent_on_topic_phoenix(server: FakePhoenixServer) -> None:
    sock, _ = make_socket(server)
    await sock.connect()
    await server.until(lambda: len(server.sent("heartbeat")) >= 3)
    beat = server.sent("heartbeat")[0]
    assert beat[0] is None and beat[2] == "phoenix" and beat[4] == {}
    assert len(server.upgrades) == 1  # acked beats never trip the watchdog
    await sock.close()


async def test_watchdog_reconnects_when_heartbeats_are_not_acked(server: FakePhoenixServer) -> None:
    server.ack_heartbeats = False
    sock, _ = make_socket(server)
    await sock.connect()
    await server.until(lambda: len(server.upgrades) >= 2)
    assert server.connections[0].close_code == 4000
    await sock.close()


async def test_reconnect_rejoins_every_topic_with_fresh_refs(server: FakePhoenixServer) -> None:
    reconnected = asyncio.Event()

    async def on_reconnect() -> None:
        reconnected.set()

    sock, pushes = make_socket(server, initial_params={"on_conflict": "reject"})
    sock.on_reconnect = on_reconnect
    await sock.connect()
    await sock.join("agent_control:A")
    await sock.join("chat_room:r")
    await server.close_connection(code=1000)  # a normal close is reconnected too
    await asyncio.wait_for(reconnected.wait(), 5)
    assert "on_conflict" not in server.upgrades[1].query
    rejoins = [f for f in server.sent("phx_join")[2:]]
    assert {f[2] for f in rejoins} == {"agent_control:A", "chat_room:r"}
    assert all(f[0] == f[1] and int(f[0]) > 2 for f in rejoins)
    await server.push("chat_room:r", "message_created", {"id": "after"})
    await asyncio.sleep(0.05)
    assert pushes == [("chat_room:r", "message_created")]
    await sock.close()


async def test_policy_violation_close_is_terminal(server: FakePhoenixServer) -> None:
    sock, _ = make_socket(server)
    await sock.connect()
    await server.close_connection(code=1008)
    with pytest.raises(SocketTerminated):
        await asyncio.wait_for(sock.wait_closed(), 5)
    await asyncio.sleep(0.2)
    assert len(server.upgrades) == 1


async def test_terminate_closes_without_reconnecting(server: FakePhoenixServer) -> None:
    sock, _ = make_socket(server)
    await sock.connect()
    await sock.join("agent_control:A")
    sock.terminate("superseded")
    await asyncio.wait_for(sock.wait_closed(), 5)  # a requested end is not an error
    await asyncio.sleep(0.2)
    assert len(server.upgrades) == 1
    assert sock.last_disconnect_reason == "superseded"


async def test_conflict_upgrade_refusal_is_terminal(server: FakePhoenixServer) -> None:
    server.refuse_with = (409, {"error": {"code": "connection_conflict", "message": "busy"}})
    sock, _ = make_socket(server)
    with pytest.raises(UpgradeRejected) as info:
        await sock.connect()
    assert info.value.rejection.is_conflict
    assert len(server.upgrades) == 1


async def test_transient_upgrade_refusal_is_retried(server: FakePhoenixServer) -> None:
    server.refuse_with = (503, {"error": {"code": "unavailable", "message": "later"}})
    sock, _ = make_socket(server)
    task = asyncio.create_task(sock.connect())
    await server.until(lambda: len(server.upgrades) >= 2)
    server.refuse_with = None
    await asyncio.wait_for(task, 5)
    assert sock.connected
    await sock.close()


async def test_leave_sends_phx_leave_with_the_join_ref(server: FakePhoenixServer) -> None:
    sock, _ = make_socket(server)
    await sock.connect()
    await sock.join("chat_room:r")
    await sock.leave("chat_room:r")
    leave = server.sent("phx_leave")[0]
    assert leave[0] == "1" and leave[1] == "2" and leave[2] == "chat_room:r"
    assert "chat_room:r" not in sock.topics
    await sock.close()
