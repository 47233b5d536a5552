"""One session's parsed output, in order: streamed deltas merged, tool results published once.

Text and thought deltas of one kind merge into one open run until anything else arrives (or
the turn is flushed). A tool call reported ``pending`` without input is held the same way,
until a ``tool_call_update`` names it (Cursor's MCP calls). A tool's result is published
once, when its call first reports ``completed`` or ``failed``; later frames still fold into
the buffered result. Every published chunk is buffered per session and handed to the
session's sink, if one is set; a failing sink is logged, never raised into the ACP
transport (which would swallow it). Callers serialise the operations of one session.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from band.integrations.acp.results import fold_result
from band.integrations.acp.types import (
    ACPToolCall,
    ACPToolResult,
    ChunkType,
    CollectedChunk,
    ToolStatus,
)

__all__ = ["ACPChunkStream", "ChunkSink"]

logger = logging.getLogger(__name__)
ChunkSink = Callable[[CollectedChunk], Awaitable[None]]
_MERGED = (ChunkType.TEXT, ChunkType.THOUGHT)
_TERMINAL = (ToolStatus.COMPLETED, ToolStatus.FAILED)


class ACPChunkStream:
    """Buffers, merges and publishes the chunks of each session."""

    def __init__(self) -> None:
        self._published: dict[str, list[CollectedChunk]] = {}
        self._results: dict[str, dict[str, CollectedChunk]] = {}
        self._calls: dict[str, dict[str, ACPToolCall]] = {}
        self._results_out: dict[str, set[str]] = {}
        self._open: dict[str, CollectedChunk] = {}
        self._sinks: dict[str, ChunkSink] = {}

    async def ingest(self, session_id: str, chunk: CollectedChunk) -> None:
        """Take one parsed chunk of ``session_id``."""
        if chunk.chunk_type == ChunkType.TOOL_RESULT:
            revision, chunk.tool = chunk.tool, None
            renamed = isinstance(revision, ACPToolCall) and self._rename_held(session_id, revision)
            if renamed and chunk.metadata.get("status") is None and not chunk.content:
                return  # the frame only named the held call
        if isinstance(chunk.tool, ACPToolCall) and chunk.tool.tool_call_id:
            self._calls.setdefault(session_id, {})[chunk.tool.tool_call_id] = chunk.tool
        if chunk.chunk_type in _MERGED:
            run = self._open.get(session_id)
            if run is not None and run.chunk_type == chunk.chunk_type:
                run.content += chunk.content
                return
            await self.close_open_run(session_id)
            self._open[session_id] = chunk
            return
        await self.close_open_run(session_id)
        if chunk.chunk_type == ChunkType.TOOL_RESULT:
            await self._result(session_id, chunk)
        elif chunk.chunk_type == ChunkType.TOOL_CALL and _unnamed(chunk):
            self._open[session_id] = chunk
        else:
            await self.finalize(session_id, chunk)

    def _rename_held(self, session_id: str, revision: ACPToolCall) -> bool:
        held = self._open.get(session_id)
        if held is None or not isinstance(held.tool, ACPToolCall):
            return False
        if held.tool.tool_call_id != revision.tool_call_id:
            return False
        held.tool, held.content = revision, revision.name
        held.metadata["raw_input"] = revision.arguments
        self._calls.setdefault(session_id, {})[revision.tool_call_id] = revision
        return True

    async def close_open_run(self, session_id: str) -> None:
        """Publish the open run (merged text or thought, or a held call), if there is one."""
        run = self._open.pop(session_id, None)
        if run is not None:
            await self.finalize(session_id, run)

    async def _result(self, session_id: str, chunk: CollectedChunk) -> None:
        call_id = str(chunk.metadata.get("tool_call_id", ""))
        call = self._calls.get(session_id, {}).get(call_id) or ACPToolCall(call_id, "unknown", {})
        chunk.tool = ACPToolResult(call, chunk.content, chunk.metadata.get("status"))
        if not call_id:
            await self.finalize(session_id, chunk)
            return
        results = self._results.setdefault(session_id, {})
        canonical = results.setdefault(call_id, chunk)
        if canonical is not chunk:
            fold_result(canonical, chunk)
        out = self._results_out.setdefault(session_id, set())
        if canonical.metadata.get("status") in _TERMINAL and call_id not in out:
            out.add(call_id)
            await self.finalize(session_id, canonical)

    async def finalize(self, session_id: str, chunk: CollectedChunk) -> None:
        """Buffer ``chunk`` and hand it to the session's sink."""
        self._published.setdefault(session_id, []).append(chunk)
        sink = self._sinks.get(session_id)
        if sink is None:
            return
        try:
            await sink(chunk)
        except Exception:
            logger.exception(
                "Posting a %s chunk of ACP session %s to the room failed",
                chunk.chunk_type,
                session_id,
            )

    def set_sink(self, session_id: str, sink: ChunkSink | None) -> None:
        if sink is None:
            self._sinks.pop(session_id, None)
        else:
            self._sinks[session_id] = sink

    async def flush(self, session_id: str) -> None:
        """End of a turn: publish the open run, then results that never became terminal."""
        await self.close_open_run(session_id)
        out = self._results_out.setdefault(session_id, set())
        for call_id, canonical in self._results.get(session_id, {}).items():
            if call_id not in out:
                out.add(call_id)
                await self.finalize(session_id, canonical)

    def get_collected_chunks(self, session_id: str | None = None) -> list[CollectedChunk]:
        if session_id is not None:
            return list(self._published.get(session_id, ()))
        return [chunk for chunks in self._published.values() for chunk in chunks]

    def get_collected_text(self, session_id: str | None = None) -> str:
        chunks = self.get_collected_chunks(session_id)
        return "".join(c.content for c in chunks if c.chunk_type == ChunkType.TEXT)

    def reset_session(self, session_id: str) -> None:
        """Forget everything of ``session_id`` (its buffer, calls, results, run and sink)."""
        for table in (
            self._published,
            self._results,
            self._calls,
            self._results_out,
            self._open,
            self._sinks,
        ):
            table.pop(session_id, None)


def _unnamed(chunk: CollectedChunk) -> bool:
    """A call reported pending before its input: a later update names it."""
    return chunk.metadata.get("status") == ToolStatus.PENDING and not chunk.metadata.get(
        "raw_input"
    )
