"""``results``, ``updates`` and ``stream``: tool results unwrapped and folded, updates read
as chunks, and one session's chunks merged, held, published once and buffered."""

from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

import pytest

from band.integrations.acp.results import fold_result, unwrap_structured_result
from band.integrations.acp.stream import ACPChunkStream
from band.integrations.acp.types import (
    ACPToolCall,
    ACPToolResult,
    ChunkType,
    CollectedChunk,
    ToolStatus,
)
from band.integrations.acp.updates import ACPUpdateParser


def test_only_an_exact_json_repeat_of_structured_content_is_removed() -> None:
    structured = {"ok": True, "n": 1}
    text = '{"ok": true, "n": 1}\n{"ok": true, "n": 1}'
    assert unwrap_structured_result(text, {"structuredContent": structured}) == (
        '{"ok": true, "n": 1}',
        structured,
    )
    assert unwrap_structured_result(
        'done\n{"result": "done"}', {"structuredContent": {"result": "done"}}
    ) == (
        "done",
        {"result": "done"},
    )
    # true is not 1, a different tail is not a repeat, and no structured content is nothing
    assert (
        unwrap_structured_result('{"ok": 1}\n{"ok": 1}', {"structuredContent": {"ok": True}})
        is None
    )
    assert (
        unwrap_structured_result("done\nother", {"structuredContent": {"result": "done"}}) is None
    )
    assert unwrap_structured_result("done", {"result": "done"}) is None
    assert unwrap_structured_result("done", "raw") is None


def result(content: str, status: str | None, *, from_raw: bool = False) -> CollectedChunk:
    chunk = CollectedChunk(ChunkType.TOOL_RESULT, content, {"status": status}, from_raw=from_raw)
    chunk.tool = ACPToolResult(ACPToolCall("c1", "x", {}), content, status)
    return chunk


def test_folding_keeps_the_latest_status_and_the_most_readable_output() -> None:
    canonical = result("{'raw': 1}", ToolStatus.IN_PROGRESS, from_raw=True)
    fold_result(canonical, result("readable", None))
    assert (canonical.content, canonical.metadata["status"]) == ("readable", ToolStatus.IN_PROGRESS)
    fold_result(canonical, result("longer raw output", ToolStatus.COMPLETED, from_raw=True))
    assert (canonical.content, canonical.metadata["status"]) == ("readable", ToolStatus.COMPLETED)
    assert isinstance(canonical.tool, ACPToolResult) and canonical.tool.output == "readable"
    raw = result("a", None, from_raw=True)
    fold_result(raw, result("abc", None, from_raw=True))
    assert raw.content == "abc"  # both raw: the longer


def update(kind: str, **fields: Any) -> Any:
    return SimpleNamespace(session_update=kind, **fields)


def text(value: str) -> Any:
    return SimpleNamespace(text=value)


def test_updates_are_read_as_chunks() -> None:
    parse = ACPUpdateParser(str.upper)._chunk_from_update
    assert parse(update("agent_message_chunk", content=text("hi"))) == CollectedChunk("text", "hi")
    assert parse(update("agent_thought_chunk", content={"text": "hm"})) == CollectedChunk(
        "thought", "hm"
    )
    plan = parse(
        update("plan", entries=[SimpleNamespace(content="a"), SimpleNamespace(content="b")])
    )
    assert plan == CollectedChunk("plan", "a\nb")
    call = parse(
        update("tool_call", tool_call_id="t", title="grep", raw_input={"q": 1}, status="pending")
    )
    assert call is not None and call.content == "GREP" and call.metadata["raw_input"] == {"q": 1}
    block = SimpleNamespace(type="content", content=text("out"))
    done = parse(
        update(
            "tool_call_update",
            tool_call_id="t",
            status="completed",
            content=[block],
            raw_output=None,
            title=None,
            raw_input=None,
        )
    )
    assert done is not None and (done.content, done.from_raw, done.tool) == ("out", False, None)
    raw = parse(
        update(
            "tool_call_update",
            tool_call_id="t",
            status="failed",
            content=None,
            raw_output={"e": 1},
            title=None,
            raw_input=None,
        )
    )
    assert raw is not None and (raw.content, raw.from_raw) == ("{'e': 1}", True)
    assert parse(update("available_commands_update")) is None
    assert parse(update("user_message_chunk", content=text("echo"))) == CollectedChunk(
        "text", "echo"
    )


async def test_a_session_stream_merges_holds_and_publishes_results_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stream, seen = ACPChunkStream(), []

    async def sink(chunk: CollectedChunk) -> None:
        seen.append((chunk.chunk_type, chunk.content, chunk.metadata.get("status")))
        if chunk.chunk_type == ChunkType.PLAN:
            raise RuntimeError("room unavailable")

    stream.set_sink("s", sink)
    await stream.ingest("s", CollectedChunk(ChunkType.TEXT, "Hel"))
    await stream.ingest("s", CollectedChunk(ChunkType.TEXT, "lo"))
    call = ACPToolCall("c1", "grep", {"q": "x"})
    await stream.ingest(
        "s",
        CollectedChunk(
            ChunkType.TOOL_CALL, "grep", {"tool_call_id": "c1", "raw_input": {"q": "x"}}, tool=call
        ),
    )
    for status in (ToolStatus.IN_PROGRESS, ToolStatus.COMPLETED, ToolStatus.COMPLETED):
        await stream.ingest(
            "s",
            CollectedChunk(
                ChunkType.TOOL_RESULT, "found", {"tool_call_id": "c1", "status": status}
            ),
        )
    await stream.ingest(
        "s",
        CollectedChunk(
            ChunkType.TOOL_RESULT, "half", {"tool_call_id": "c2", "status": ToolStatus.IN_PROGRESS}
        ),
    )
    with caplog.at_level(logging.ERROR):
        await stream.ingest("s", CollectedChunk(ChunkType.PLAN, "plan"))  # a failing sink is logged
    await stream.ingest("s", CollectedChunk(ChunkType.THOUGHT, "hm"))
    await stream.flush("s")
    assert seen == [
        ("text", "Hello", None),
        ("tool_call", "grep", None),
        ("tool_result", "found", ToolStatus.COMPLETED),  # once, when it first became terminal
        ("plan", "plan", None),
        ("thought", "hm", None),
        ("tool_result", "half", ToolStatus.IN_PROGRESS),  # never terminal: at the flush
    ]
    assert "room unavailable" in caplog.text
    assert stream.get_collected_text("s") == "Hello" == stream.get_collected_text()
    assert len(stream.get_collected_chunks()) == 6
    stream.reset_session("s")
    assert stream.get_collected_chunks("s") == []


async def test_a_call_reported_before_its_input_waits_for_its_name() -> None:
    stream = ACPChunkStream()
    pending = ACPToolCall("c1", "unknown", {})
    meta = {"tool_call_id": "c1", "status": ToolStatus.PENDING, "raw_input": None}
    await stream.ingest("s", CollectedChunk(ChunkType.TOOL_CALL, "unknown", meta, tool=pending))
    assert stream.get_collected_chunks("s") == []  # held
    named = ACPToolCall("c1", "band_send_message", {"content": "hi"})
    rename = CollectedChunk(
        ChunkType.TOOL_RESULT, "", {"tool_call_id": "c1", "status": None}, tool=named
    )
    await stream.ingest("s", rename)
    assert stream.get_collected_chunks("s") == []  # still held, now named
    await stream.ingest(
        "s",
        CollectedChunk(
            ChunkType.TOOL_RESULT, "ok", {"tool_call_id": "c1", "status": ToolStatus.COMPLETED}
        ),
    )
    call, done = stream.get_collected_chunks("s")
    assert (call.content, call.metadata["raw_input"]) == ("band_send_message", {"content": "hi"})
    assert isinstance(done.tool, ACPToolResult) and done.tool.call == named
