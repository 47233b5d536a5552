"""band.adapters.opencode.room: a turn's records (its tokens over its messages, the futures
that end and release it) and the ports a room's open asks act through."""

from __future__ import annotations

import asyncio
from typing import Any

from band.adapters.opencode.approvals import RoomApprovals
from band.adapters.opencode.config import OpencodeAdapterConfig
from band.adapters.opencode.room import RoomState, TurnState, room_ports
from band.core.types import TurnUsage


class Client:
    def __init__(self) -> None:
        self.aborted: list[str] = []

    async def abort_session(self, session_id: str) -> None:
        self.aborted.append(session_id)


def turn(client: Any = None) -> TurnState:
    loop = asyncio.get_running_loop()
    return TurnState(
        "ses_1", client or Client(), object(), loop.create_future(), loop.create_future()
    )  # type: ignore[arg-type]


async def test_a_turns_tokens_are_the_sum_over_its_messages() -> None:
    state = turn()
    assert state.usage == TurnUsage()
    state.usage_by_message["m1"] = TurnUsage(10, 2, 1, 0)
    state.usage_by_message["m2"] = TurnUsage(5, 3, 0, 4)
    state.usage_by_message["m1"] = TurnUsage(12, 2, 1, 0)  # a message's latest counts
    assert state.usage == TurnUsage(17, 5, 1, 4)


async def test_releasing_and_ending_a_turn() -> None:
    state = turn()
    state.release()
    state.release()
    assert state.turn_release_future.done() and not state.turn_future.done()
    state.end()
    assert state.turn_future.done()


async def test_the_ports_act_on_the_rooms_current_turn() -> None:
    room = RoomState("room-1")
    ports = room_ports(room, lambda name: name == "band_x")
    room.approvals = RoomApprovals(OpencodeAdapterConfig(), ports)
    assert ports.client() is None and ports.turn_mentions() == []
    await ports.abort_session()  # no turn: nothing to abort
    client = Client()
    room.turn = turn(client)
    room.turn.pending_mentions.append({"id": "alice"})
    assert ports.client() is client and ports.turn_mentions() == [{"id": "alice"}]
    await ports.abort_session()
    assert client.aborted == ["ses_1"] and ports.is_own_band_tool("band_x")
