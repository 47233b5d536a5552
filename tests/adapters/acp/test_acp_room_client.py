"""The ACP adapter's room client: who decides a permission request. A ``resolve_permission``
callback sees band-sdk's ``ACPPermissionRequest`` (the call named as Band names it, the
offered options) and must pick an offered id; Band's own tools are allowed; with no turn
running the request is cancelled; a cancelled request is shown in the room as a failed call;
an agent's extension notification without a room hook goes to the stream."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("acp")

from acp import update_tool_call
from acp.schema import PermissionOption

from band.adapters.acp import ACPClientAdapter, ACPClientAdapterConfig
from band.integrations.acp.client_adapter import ACPPermissionRequest
from band.integrations.acp.room_emitter import RoomTurnEmitter
from band.integrations.acp.types import ACPToolCall, ChunkType, CollectedChunk
from band.testing import FakeAgentTools

OPTIONS = [
    PermissionOption(option_id="once", name="Allow", kind="allow_once"),
    {"optionId": "never", "name": "Reject", "kind": "reject_once"},
    "not an option",
]
CONFIG = ACPClientAdapterConfig(command=("agent",))


async def test_a_resolver_sees_band_sdks_request_and_must_pick_an_offered_option() -> None:
    seen: list[ACPPermissionRequest] = []
    answer = {"id": "never"}

    async def resolve(request: ACPPermissionRequest) -> str | None:
        seen.append(request)
        return answer["id"]

    client = ACPClientAdapter(CONFIG, resolve_permission=resolve).room_client("r")
    call = update_tool_call("t1", title="mcp__band__band_send_message", raw_input={"content": "x"})
    assert await client.choose("s", call, list(OPTIONS)) == "never"
    (request,) = seen
    assert (request.room_id, request.session_id) == ("r", "s")
    assert request.tool_call == ACPToolCall(
        "t1", "band_send_message", {"content": "x"}, title="mcp__band__band_send_message"
    )
    assert request.options == tuple(OPTIONS[:2])
    answer["id"] = "made-up"
    with pytest.raises(ValueError, match='unavailable option "made-up"'):
        await client.choose("s", call, list(OPTIONS))


async def test_without_a_resolver_band_tools_are_allowed_and_others_wait_for_a_turn() -> None:
    client = ACPClientAdapter(CONFIG).room_client("r")
    band = update_tool_call("t1", title="band/band_send_message")
    assert await client.choose("s", band, list(OPTIONS)) == "once"
    other = update_tool_call("t2", title="rm -rf /")
    assert await client.choose("s", other, list(OPTIONS)) is None  # no turn to ask in


async def test_a_cancelled_request_is_shown_in_the_room_as_a_failed_call() -> None:
    tools = FakeAgentTools()
    client = ACPClientAdapter(CONFIG).room_client("r")
    handler = client.permission_handler(RoomTurnEmitter(tools, session_id="s", room_id="r"))
    narrated: list[Any] = []

    async def narrate(post: Any) -> None:
        narrated.append(post)
        await post

    answer = await handler(
        options=OPTIONS,
        session_id="s",
        tool_call=update_tool_call("t2", title="rm -rf /"),
        narrate_permission=narrate,
    )
    assert answer == {"outcome": {"outcome": "cancelled"}} and len(narrated) == 1
    call, result = tools.events_sent
    assert json.loads(call["content"])["name"] == "rm -rf /"
    assert json.loads(result["content"])["output"] == "Permission cancelled"
    allowed = await handler(
        options=OPTIONS,
        session_id="s",
        tool_call=update_tool_call("t3", title="band-band_no_reply"),
        narrate_permission=narrate,
    )
    assert allowed == {"outcome": {"outcome": "selected", "optionId": "once"}}


async def test_a_profiles_notification_without_a_room_hook_joins_the_stream() -> None:
    class Profile:
        extension_session_id = "s"

        async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
            return {"ok": method}

        async def ext_notification(
            self, method: str, params: dict[str, Any]
        ) -> list[CollectedChunk]:
            return [CollectedChunk(ChunkType.PLAN, method)]

    client = ACPClientAdapter(CONFIG, profile=Profile()).room_client("r")  # type: ignore[arg-type]
    assert await client.ext_method("x/a", {}) == {"ok": "x/a"}
    await client.ext_notification("x/b", {})
    assert [c.content for c in client.get_collected_chunks("s")] == ["x/b"]


def test_cursors_titles_of_band_tools_read_as_band_names() -> None:
    from types import SimpleNamespace

    from band.adapters.cursor_acp import CursorACPAdapter

    client = CursorACPAdapter().room_client("r")
    titled = SimpleNamespace(
        session_update="tool_call",
        tool_call_id="t1",
        title="band-band_send_message: band_send_message",
        raw_input={"content": "hi"},
        status="in_progress",
    )
    chunk = client._chunk_from_update(titled)
    assert chunk is not None and chunk.content == "band_send_message"
    shell = SimpleNamespace(**{**vars(titled), "title": "Shell: ls"})
    shell_chunk = client._chunk_from_update(shell)
    assert shell_chunk is not None and shell_chunk.content == "Shell: ls"
