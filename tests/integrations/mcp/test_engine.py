"""``band.integrations.mcp.engine``: registrations, resolvers and the FastMCP server they build.

A real ``mcp`` ``ClientSession`` (in memory, against the ``FastMCP`` server ``build_engine``
returns) lists and calls the tools; each test pins what the client sees and which room's
tools the call reached.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import pytest
from mcp.server.fastmcp import FastMCP
from mcp.shared.memory import create_connected_server_and_client_session
from pydantic import BaseModel

from band.core.exceptions import MessagePostError, MessagePostKind
from band.core.types import Capability
from band.integrations.mcp.engine import (
    CustomToolSpec,
    EmbeddedResolver,
    EngineSpec,
    MCPToolRegistration,
    ToolCallFailed,
    build_custom_tool_registration,
    build_engine,
    build_resolved_band_mcp_tool_registrations,
    build_tool_registration,
    dispatch_tool,
    enrich_send_message_error,
    extend_with_chat_id,
    pin_existing_chat_id,
    resolve_tool_method,
    room_turn,
)
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import BandTool
from band.runtime.tools.definitions import ToolDefinition, iter_tool_definitions
from band.testing import FakeAgentTools
from band_protocol import TurnEffect

pytestmark = pytest.mark.timeout(30)
ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}


def definition(name: str) -> ToolDefinition:
    return next(d for d in iter_tool_definitions() if d.name == name)


def rooms() -> dict[str, FakeAgentTools]:
    return {r: FakeAgentTools(room_id=r, participants=[ALICE]) for r in ("room-a", "room-b")}


async def call(
    registrations: Sequence[MCPToolRegistration], tool: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    engine = build_engine(EngineSpec("band", tuple(registrations)))
    async with create_connected_server_and_client_session(engine) as session:
        listed = await session.list_tools()
        result = await session.call_tool(tool, arguments)
    return {
        "schemas": {t.name: t.inputSchema for t in listed.tools},
        "is_error": bool(result.isError),
        "text": "".join(getattr(block, "text", "") for block in result.content),
    }


async def test_build_engine_serves_a_spec_as_a_fresh_fastmcp_server_per_call() -> None:
    held = rooms()
    spec = EngineSpec("band", tuple(build_resolved_band_mcp_tool_registrations(get_tools=held.get)))
    first, second = build_engine(spec), build_engine(spec)

    result = await call(
        spec.tools,
        "band_send_message",
        {"chat_id": "room-b", "content": "hello", "mentions": ["alice"]},
    )

    assert isinstance(first, FastMCP) and first is not second and first.name == "band"
    assert result["is_error"] is False and held["room-b"].chat == ["hello"]
    assert held["room-a"].chat == []
    assert "chat_id" in result["schemas"]["band_send_message"]["required"]


def test_build_engine_refuses_two_tools_of_one_name() -> None:
    one = build_resolved_band_mcp_tool_registrations(get_tools=rooms().get)[0]
    with pytest.raises(ValueError, match=f"Duplicate MCP tool names: {one.name}"):
        build_engine(EngineSpec("band", (one, one)))


async def test_a_pinned_room_runs_there_whatever_chat_id_the_client_sends() -> None:
    held = rooms()
    send = definition(BandTool.SEND_MESSAGE)
    pinned = build_tool_registration(
        send,
        extend_with_chat_id(send.input_model, "room-a"),
        resolver=EmbeddedResolver(held.get),
        strip_chat_id=True,
        pinned_room_id="room-a",
    )
    args = {"chat_id": "room-b", "content": "pinned", "mentions": ["alice"]}

    result = await call([pinned], BandTool.SEND_MESSAGE, args)

    assert result["is_error"] is False
    assert held["room-a"].chat == ["pinned"] and held["room-b"].chat == []
    assert "chat_id" not in result["schemas"][BandTool.SEND_MESSAGE]["properties"]


def test_pinned_room_and_room_from_connection_are_exclusive() -> None:
    send = definition(BandTool.SEND_MESSAGE)
    with pytest.raises(ValueError, match="exclusive"):
        build_tool_registration(
            send,
            pin_existing_chat_id(send.input_model),
            resolver=EmbeddedResolver(rooms().get),
            strip_chat_id=True,
            pinned_room_id="room-a",
            room_from_connection=True,
        )


async def test_a_tool_with_its_own_chat_id_parameter_receives_the_room() -> None:
    seen: list[tuple[str | None, dict[str, Any]]] = []

    class Recorder:
        async def invoke(
            self, definition: ToolDefinition, chat_id: str | None, arguments: dict[str, Any]
        ) -> Any:
            seen.append((chat_id, arguments))
            return {"ok": True}

    no_reply = definition(BandTool.NO_REPLY)
    kept = build_tool_registration(
        no_reply,
        extend_with_chat_id(no_reply.input_model, None),
        resolver=Recorder(),
        strip_chat_id=False,
    )
    result = await call([kept], BandTool.NO_REPLY, {"room_id": "room-b"})

    assert result == {**result, "is_error": False, "text": '{"ok": true}'}
    assert seen == [("room-b", {"chat_id": "room-b"})]


async def test_a_room_endpoint_tool_refuses_a_call_that_came_on_no_room_endpoint() -> None:
    held = rooms()
    registrations = build_resolved_band_mcp_tool_registrations(
        get_tools=held.get, room_from_connection=True
    )
    result = await call(registrations, BandTool.NO_REPLY, {"chat_id": "room-a"})

    assert result["is_error"] is True and "room endpoint" in result["text"]
    assert not held["room-a"].turn.replied


async def test_a_custom_tool_spec_records_its_effect_on_its_rooms_turn() -> None:
    class Escalate(BaseModel):
        """Hand the conversation to a person."""

        reason: str

    @declares_turn_effect(TurnEffect.DECLINE)
    def escalate(args: Escalate) -> str:
        if args.reason == "boom":
            raise ValueError("cannot escalate that")
        return f"escalated: {args.reason}"

    held = rooms()
    spec = CustomToolSpec(Escalate, escalate)
    registration = build_custom_tool_registration(spec, get_tools=held.get)

    done = await call([registration], "escalate", {"chat_id": "room-b", "reason": "refund"})
    failed = await call([registration], "escalate", {"chat_id": "room-a", "reason": "boom"})

    assert done == {**done, "is_error": False, "text": "escalated: refund"}
    assert "chat_id" in done["schemas"]["escalate"]["required"]
    assert held["room-b"].turn.declined and not held["room-a"].turn.declined
    assert failed["is_error"] is True and "cannot escalate that" in failed["text"]
    assert room_turn(held.get, "room-b") is held["room-b"].turn
    assert room_turn(None, "room-b") is None and room_turn(held.get, "room-z") is None


async def test_a_refused_message_post_lists_the_handles_the_model_may_mention() -> None:
    tools = FakeAgentTools(room_id="room-a", participants=[ALICE])
    tools.send_message_error = MessagePostError("the platform refused the post")
    send = definition(BandTool.SEND_MESSAGE)

    with pytest.raises(ToolCallFailed) as refused:
        await dispatch_tool(tools, send, {"content": "hi", "mentions": ["alice"]})
    unconfirmed = MessagePostError("maybe sent", kind=MessagePostKind.UNCONFIRMED_RECIPIENT)
    other = enrich_send_message_error(definition(BandTool.NO_REPLY), tools, ValueError("no"))

    assert "the platform refused the post" in str(refused.value)
    assert "['alice']" in str(refused.value)
    assert enrich_send_message_error(send, tools, unconfirmed) is unconfirmed
    assert str(other) == "no"


async def test_a_tools_object_without_the_definitions_method_is_named_in_the_error() -> None:
    send = definition(BandTool.SEND_MESSAGE)
    with pytest.raises(RuntimeError, match="object has no method 'send_message'"):
        resolve_tool_method(object(), send)
    tools = FakeAgentTools(room_id="room-a")
    assert resolve_tool_method(tools, send) == tools.send_message


async def test_an_image_read_from_the_room_reaches_the_client_as_an_image_block() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(32)
    image = {"id": "f-png", "name": "p.png", "content_type": "image/png", "content": png}
    tools = FakeAgentTools(room_id="room-a", participants=[ALICE], files=[image])
    engine = build_engine(
        EngineSpec(
            "band",
            tuple(
                build_resolved_band_mcp_tool_registrations(
                    get_tools={"room-a": tools}.get, capabilities=frozenset({Capability.FILES})
                )
            ),
        )
    )
    async with create_connected_server_and_client_session(engine) as session:
        result = await session.call_tool(
            BandTool.READ_ROOM_FILE, {"chat_id": "room-a", "file_id": "f-png"}
        )

    [block] = result.content
    assert result.isError is False and block.type == "image"
    assert block.mimeType == "image/png" and base64.b64decode(block.data) == png
