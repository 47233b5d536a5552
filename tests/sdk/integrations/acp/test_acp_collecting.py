"""``collecting`` and ``client_types``: the collecting client's routing (config pushes,
extension notifications into the stream, elicitations, forgetting a session) and the
``session_busy`` refusal and room records."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("acp")

from acp.schema import ConfigOptionUpdate, DeclineElicitationResponse

from band.converters.acp_client import ACPClientSessionState
from band.integrations.acp import ACPClientSessionState as Exported
from band.integrations.acp import BandACPClient as ExportedClient
from band.integrations.acp.client_types import (
    ACPRoom,
    BandACPClient,
    RoomSession,
    is_session_busy,
    session_busy_error,
)
from band.integrations.acp.collecting import ACPCollectingClient
from band.integrations.acp.types import ChunkType, CollectedChunk


class Profile:
    def __init__(self) -> None:
        self.forgotten: list[str] = []
        self.extension_session_id: str | None = None

    def forget_session(self, session_id: str) -> None:
        self.forgotten.append(session_id)

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]:
        return {"method": method}

    async def ext_notification(
        self, method: str, params: dict[str, object]
    ) -> list[CollectedChunk]:
        return [CollectedChunk(ChunkType.PLAN, f"{method}: {params.get('n')}")]


async def test_extension_notifications_join_their_sessions_stream_in_order() -> None:
    profile = Profile()
    client = ACPCollectingClient(profile)
    await client.session_update(
        "s", SimpleNamespace(session_update="agent_message_chunk", content={"text": "a"})
    )
    await client.ext_notification("x/todo", {"sessionId": "s", "n": 1})
    await client.ext_notification("x/todo", {"n": 2})  # no session: dropped
    profile.extension_session_id = "s"
    await client.ext_notification("x/todo", {"n": 3})  # the profile's session
    assert [(c.chunk_type, c.content) for c in client.get_collected_chunks("s")] == [
        ("text", "a"),
        ("plan", "x/todo: 1"),
        ("plan", "x/todo: 3"),
    ]
    assert await client.ext_method("x/ask", {}) == {"method": "x/ask"}


async def test_config_pushes_are_kept_per_session_and_forgotten_with_it() -> None:
    profile = Profile()
    client = BandACPClient(profile)
    push = ConfigOptionUpdate(session_update="config_option_update", config_options=[])
    await client.session_update("s", push)
    client.record_config_options("s", [SimpleNamespace(id="model")])  # type: ignore[list-item]
    client.reset_session("s")  # a new turn keeps the catalog
    assert [o.id for o in client.config_options("s")] == ["model"]
    client.forget_session("s")
    assert client.config_options("s") == () and profile.forgotten == ["s"]


async def test_elicitations_are_declined_without_a_handler_and_routed_with_one() -> None:
    client = ACPCollectingClient()
    mode = SimpleNamespace(session_id="s", requested_schema={})
    assert isinstance(await client.create_elicitation("ok?", mode), DeclineElicitationResponse)
    seen: list[Any] = []

    async def handler(**request: Any) -> str:
        seen.append(request)
        await request["narrate_elicitation"](asyncio.sleep(0))
        return "accepted"

    client.set_elicitation_handler("s", handler)
    assert await client.create_elicitation("ok?", mode) == "accepted"
    assert seen[0]["message"] == "ok?"
    client.set_elicitation_handler("s", None)
    assert isinstance(await client.create_elicitation("ok?", mode), DeclineElicitationResponse)


def test_the_session_busy_refusal() -> None:
    error = session_busy_error()
    assert is_session_busy(error) and error.code == -32003
    assert not is_session_busy(SimpleNamespace(code=-32003, data={"reason": "other"}))
    assert not is_session_busy(SimpleNamespace(code=-32000, data={"reason": "session_busy"}))


def test_room_records() -> None:
    room = ACPRoom("r", "/w")
    assert room.live_record is None and room.live_session is None
    room.session = RoomSession("s-1", None)
    assert (room.session.bootstrap_pending, room.session.replay_pending, room.session.live) == (
        True,
        True,
        True,
    )
    runtime: Any = object()
    room.runtime = runtime
    assert room.live_session == ("s-1", runtime)
    room.session.live = False
    assert room.live_session is None
    assert Exported is ACPClientSessionState and ExportedClient is BandACPClient
    assert ACPClientSessionState().room_to_session == {}
