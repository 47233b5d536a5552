"""Room tools: schemas by capability, execute_tool_call results, mentions, effects."""

from __future__ import annotations

from typing import Any

import pytest

from band import Capability
from band.core.exceptions import BandToolError, MessagePostError, RoomExecutionStoppedError
from band.platform import BandRestError
from band.runtime.tools import (
    ALL_TOOL_NAMES,
    CHAT_TOOL_NAMES,
    MISSING_MENTIONS_ERROR,
    RoomTools,
    TurnEffect,
    turn_effect,
)
from band.testing import FakePlatform
from band_sdk_core import AgentFailure

ROSTER = [
    {"id": "u1", "name": "Alice", "type": "User", "handle": "alice"},
    {"id": "u2", "name": "Bob Smith", "type": "User", "handle": None},
    {"id": "a1", "name": "Echo", "type": "Agent", "handle": "alice/echo"},
]


def room_tools(**kwargs: Any) -> tuple[RoomTools, FakePlatform]:
    platform = FakePlatform(participants=ROSTER, **kwargs)
    return RoomTools(platform, "r1", participants=ROSTER, agent_id="a1"), platform


def names(schemas: list[dict[str, Any]]) -> list[str]:
    return [s["function"]["name"] if "function" in s else s["name"] for s in schemas]


def test_schema_groups_follow_capabilities() -> None:
    tools, _ = room_tools()
    chat = names(tools.get_openai_tool_schemas(capabilities=frozenset()))
    assert chat == [
        "band_send_message",
        "band_send_event",
        "band_no_reply",
        "band_add_participant",
        "band_remove_participant",
        "band_lookup_peers",
        "band_get_participants",
        "band_create_chatroom",
    ]
    legacy = names(tools.get_openai_tool_schemas())
    assert len(legacy) == 13 and "band_add_contact" in legacy
    memory = names(tools.get_anthropic_tool_schemas(capabilities={Capability.MEMORY}))
    assert len(memory) == 13 and "band_store_memory" in memory and "band_add_contact" not in memory
    assert set(chat) == CHAT_TOOL_NAMES and len(ALL_TOOL_NAMES) == 28


def test_schema_shapes() -> None:
    tools, _ = room_tools()
    openai = tools.get_openai_tool_schemas(capabilities=frozenset())[5]
    assert openai["type"] == "function"
    params = openai["function"]["parameters"]
    assert "title" not in params and params["type"] == "object"
    assert "maximum" not in params["properties"]["page_size"]
    anthropic = tools.get_anthropic_tool_schemas(capabilities=frozenset())[0]
    assert set(anthropic) == {"name", "description", "input_schema"}
    assert anthropic["input_schema"]["required"] == ["content", "mentions"]
    with pytest.raises(ValueError, match=r"Invalid format: xml\. Must be 'openai' or 'anthropic'"):
        tools.get_tool_schemas("xml")


async def test_execute_returns_error_text_for_bad_input_and_unknown_tools() -> None:
    tools, _ = room_tools()
    assert await tools.execute_tool_call("band_send_message", {"content": "hi"}) == (
        "Invalid arguments for band_send_message: mentions: Field required"
    )
    blank = await tools.execute_tool_call("band_send_message", {"content": " ", "mentions": ["x"]})
    assert blank == "Invalid arguments for band_send_message: content: Value error, can't be blank"
    assert await tools.execute_tool_call("band_fly", {}) == "Unknown tool: band_fly"
    unknown = await tools.execute_tool_call(
        "band_send_message", {"content": "hi", "mentions": ["zed"]}
    )
    assert unknown == (
        "Error executing band_send_message: Unknown participant 'zed'. Available handles: ['alice']"
    )
    event = await tools.execute_tool_call(
        "band_send_event", {"content": "x", "message_type": "tool_call"}
    )
    assert event.startswith("Invalid arguments for band_send_event: message_type:")
    assert tools.turn.effects == ()


async def test_missing_mentions_raise_band_tool_error() -> None:
    tools, _ = room_tools()
    with pytest.raises(BandToolError) as info:
        await tools.execute_tool_call("band_send_message", {"content": "hi", "mentions": []})
    assert str(info.value) == (
        f"{MISSING_MENTIONS_ERROR}. Available handles: ['alice']. "
        "Use participant handles from the list."
    )
    bare = RoomTools(FakePlatform(), "r1")
    with pytest.raises(BandToolError, match=r"^At least one mention is required$"):
        await bare.send_message("hi", mentions=None)


async def test_mentions_resolve_by_handle_name_and_id() -> None:
    tools, platform = room_tools()
    await tools.send_message("hi", mentions=["@alice", "Bob Smith", "u1", {"id": "a1"}])
    assert platform.posted_messages[0]["mentions"] == [
        {"id": "u1", "handle": "alice"},
        {"id": "u2", "handle": ""},
        {"id": "a1", "handle": "alice/echo"},
    ]
    assert tools.turn.effects == (TurnEffect.REPLY,)


async def test_invisible_content_is_refused_without_a_request() -> None:
    tools, platform = room_tools()
    assert await tools.send_message("\u200b ", mentions=["alice"]) is None
    assert await tools.send_event("  ", "thought") is None
    assert platform.posted_messages == [] and tools.turn.effects == ()


async def test_long_events_are_cut_in_the_middle() -> None:
    tools, platform = room_tools()
    await tools.send_event("a" * 10_000 + "b" * 10_000, "tool_result")
    content = platform.posted_events[0]["content"]
    assert len(content) <= 16_384 and "... [truncated] ..." in content
    assert content.startswith("a") and content.endswith("b")


async def test_send_failure_posts_error_event_and_marks_reported() -> None:
    tools, platform = room_tools()
    await tools.send_failure(AgentFailure("openai", "  ", code="rate_limited"))
    event = platform.posted_events[0]
    assert event["message_type"] == "error"
    assert event["content"] == "openai failed without an error message."
    assert event["metadata"]["failure"]["code"] == "rate_limited"
    assert tools.turn.failure_reported and tools.turn.complete and not tools.turn.replied


async def test_send_failure_is_best_effort() -> None:
    tools, platform = room_tools()
    platform.event_error = RuntimeError("down")
    assert await tools.send_failure(AgentFailure("x", "boom")) == {"ok": False, "error": "down"}
    assert not tools.turn.failure_reported


async def test_platform_refusals_become_typed_errors() -> None:
    tools, platform = room_tools()
    platform.message_error = BandRestError(403, "execution_stopped", "Execution is stopped")
    with pytest.raises(RoomExecutionStoppedError, match="Room r1: platform execution was stopped"):
        await tools.execute_tool_call("band_send_message", {"content": "x", "mentions": ["alice"]})
    platform.message_error = BandRestError(
        422, "validation_error", "mentioned_participant_not_in_room"
    )
    with pytest.raises(MessagePostError) as info:
        await tools.send_message("x", mentions=["alice"])
    assert info.value.kind == "mentioned_participant_not_in_room"


async def test_no_reply_declines_and_reads_observe() -> None:
    tools, _ = room_tools()
    assert await tools.execute_tool_call("band_no_reply", {"reason": "not for me"}) == {
        "status": "no_reply"
    }
    await tools.execute_tool_call("band_get_participants", {})
    assert tools.turn.effects == (TurnEffect.DECLINE, TurnEffect.OBSERVE)
    assert tools.turn.replied and tools.turn.declined


async def test_add_and_remove_participants_through_peers() -> None:
    peer = {"id": "p9", "name": "Helper", "handle": "alice/helper", "type": "Agent"}
    tools, _ = room_tools(peers=[peer])
    added = await tools.execute_tool_call("band_add_participant", {"name": "alice/helper"})
    assert added == {"id": "p9", "name": "Helper", "role": "member", "status": "added"}
    removed = await tools.execute_tool_call("band_remove_participant", {"identifier": "Helper"})
    assert removed["status"] == "removed"
    assert tools.turn.effects == (TurnEffect.ACT, TurnEffect.ACT)


async def test_memory_tools_round_trip() -> None:
    tools, _ = room_tools()
    stored = await tools.execute_tool_call(
        "band_store_memory",
        {
            "content": "Alice likes tea",
            "system": "long_term",
            "type": "semantic",
            "segment": "user",
            "thought": "a preference",
            "scope": "subject",
            "subject_id": "u1",
        },
    )
    listed = await tools.execute_tool_call("band_list_memories", {"content_query": "tea"})
    assert [m["id"] for m in listed["data"]] == [stored["id"]]
    assert (await tools.archive_memory(stored["id"]))["status"] == "archived"


def test_turn_effect_table() -> None:
    assert turn_effect("band_send_message") is TurnEffect.REPLY
    assert turn_effect("mcp__band__band_no_reply") is TurnEffect.DECLINE
    assert turn_effect("create_agent_chat_message") is TurnEffect.REPLY
    assert turn_effect("band_store_memory") is TurnEffect.ACT
    assert turn_effect("band_send_event") is TurnEffect.OBSERVE
    assert turn_effect("escalate", custom_effects={"escalate": TurnEffect.ACT}) is TurnEffect.ACT
    assert turn_effect("whatever") is TurnEffect.OBSERVE
    assert not TurnEffect.OBSERVE.did_work and TurnEffect.ACT.did_work
