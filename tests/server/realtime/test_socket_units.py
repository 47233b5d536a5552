"""Framing and the outbound queue, without a network."""

from __future__ import annotations

import asyncio
import json
from typing import cast

import pytest
from starlette.websockets import WebSocket

from band_server.realtime.connection import SLOW_CONSUMER_CODE, SocketConnection
from band_server.realtime.phoenix import BadFrame, Frame, error_reply, ok_reply, parse_frame
from band_server.services.identity.principals import Principal

AGENT = Principal("agent", "a1", "Echo", "alice/echo", owner_id="u1")


def test_parse_a_join_frame() -> None:
    assert parse_frame('["3","3","chat_room:r","phx_join",{}]') == Frame(
        "3", "3", "chat_room:r", "phx_join", {}
    )


def test_numeric_refs_are_read_as_strings() -> None:
    frame = parse_frame('[null, 12, "phoenix", "heartbeat", {}]')
    assert isinstance(frame, Frame)
    assert (frame.join_ref, frame.ref) == (None, "12")


@pytest.mark.parametrize(
    ("text", "ref"),
    [
        ("nope", None),
        ('{"a": 1}', None),
        ('["1", "2", "t", "e"]', "2"),
        ('["1", "2", "t", "e", []]', "2"),
        ('["1", true, "t", "e", {}]', None),
        ('["1", "2", "t", "e", {}]' + " " * 70000, None),
    ],
)
def test_unusable_frames_keep_the_ref_they_had(text: str, ref: str | None) -> None:
    frame = parse_frame(text)
    assert isinstance(frame, BadFrame)
    assert frame.ref == ref


def test_replies_are_v2_arrays() -> None:
    assert json.loads(ok_reply("1", "2", "t")) == [
        "1",
        "2",
        "t",
        "phx_reply",
        {"status": "ok", "response": {}},
    ]
    assert json.loads(error_reply(None, "2", "phoenix", "why")) == [
        None,
        "2",
        "phoenix",
        "phx_reply",
        {"status": "error", "response": {"reason": "why"}},
    ]


class StuckSocket:
    """A socket whose peer never reads: every send waits forever."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: list[int] = []
        self.release = asyncio.Event()

    async def send_text(self, data: str) -> None:
        self.sent.append(data)
        await self.release.wait()

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed.append(code)


async def test_slow_socket_is_closed_instead_of_buffering_forever() -> None:
    ws = StuckSocket()
    conn = SocketConnection(cast(WebSocket, ws), AGENT, max_queued=5)
    conn.start()
    for i in range(20):
        conn.send_text(f"frame {i}")  # never blocks, however stuck the peer is
    assert conn.close_code == SLOW_CONSUMER_CODE
    ws.release.set()
    await conn.shutdown()
    assert ws.closed == [SLOW_CONSUMER_CODE]
    assert len(ws.sent) <= 6


async def test_close_flushes_queued_frames_first() -> None:
    ws = StuckSocket()
    ws.release.set()
    conn = SocketConnection(cast(WebSocket, ws), AGENT)
    conn.start()
    conn.send_text("a")
    conn.send_text("b")
    conn.close(1008)
    conn.send_text("after close is dropped")
    await conn.shutdown()
    assert ws.sent == ["a", "b"]
    assert ws.closed == [1008]


async def test_shutdown_gives_up_on_a_writer_that_never_finishes() -> None:
    ws = StuckSocket()
    conn = SocketConnection(cast(WebSocket, ws), AGENT)
    conn.start()
    conn.send_text("stuck")
    await asyncio.sleep(0)
    await asyncio.wait_for(conn.shutdown(grace=0.05), 1)
    assert ws.closed == []


async def test_a_push_to_an_idle_socket_is_sent_at_once_without_a_task() -> None:
    ws = StuckSocket()
    ws.release.set()
    conn = SocketConnection(cast(WebSocket, ws), AGENT)
    conn.start()
    tasks_before = asyncio.all_tasks()
    conn.send_text("a")
    conn.send_text("b")
    assert ws.sent == ["a", "b"]  # written in the pusher's own call
    assert asyncio.all_tasks() == tasks_before
    assert conn.frames_out == 2


async def test_a_send_that_waits_keeps_the_order_and_goes_back_to_idle() -> None:
    ws = StuckSocket()
    conn = SocketConnection(cast(WebSocket, ws), AGENT)
    conn.start()
    tasks_before = asyncio.all_tasks()
    conn.send_text("first")  # the peer stopped reading: this send waits
    conn.send_text("second")
    conn.send_text("third")
    await asyncio.sleep(0)
    assert ws.sent == ["first"]
    (writer,) = asyncio.all_tasks() - tasks_before  # the one task finishing the sends
    ws.release.set()
    await asyncio.wait_for(writer, 5)
    assert conn.frames_out == 3
    assert ws.sent == ["first", "second", "third"]
    conn.send_text("fourth")  # idle again: sent at once
    assert ws.sent[-1] == "fourth"
    assert asyncio.all_tasks() == tasks_before
