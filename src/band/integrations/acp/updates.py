"""ACP ``session/update`` frames read as ``CollectedChunk``s (text, thought, tool call, tool
result, plan), the parsing half of :class:`~band.integrations.acp.collecting.ACPCollectingClient`.

``canonicalize_tool_name`` rewrites a reported tool name (an agent's spelling of a Band
tool back to Band's). A frame of another kind that carries text content is read as text.
"""

from __future__ import annotations

from collections.abc import Callable

from band.integrations.acp.results import unwrap_structured_result
from band.integrations.acp.types import ACPToolCall, ChunkType, CollectedChunk, ToolStatus

__all__ = ["ACPUpdateParser"]


def _unchanged(name: str) -> str:
    return name


class ACPUpdateParser:
    """Turns one update into at most one chunk; keeps no state of its own."""

    def __init__(self, canonicalize_tool_name: Callable[[str], str] | None = None) -> None:
        self._canonicalize_tool_name = canonicalize_tool_name or _unchanged

    def _chunk_from_update(self, update: object) -> CollectedChunk | None:
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            return CollectedChunk(ChunkType.TEXT, self._extract_text_from_content(update))
        if kind == "agent_thought_chunk":
            return CollectedChunk(ChunkType.THOUGHT, self._extract_text_from_content(update))
        if kind == "tool_call":
            return self._tool_call_chunk(update)
        if kind == "tool_call_update":
            return self._tool_result_chunk(update)
        if kind == "plan":
            entries = getattr(update, "entries", None) or []
            text = "\n".join(getattr(e, "content", str(e)) for e in entries)
            return CollectedChunk(ChunkType.PLAN, text)
        text = self._extract_text_from_content(update)
        return CollectedChunk(ChunkType.TEXT, text) if text else None

    def _tool_call_chunk(self, update: object) -> CollectedChunk:
        call = ACPToolCall.from_acp(update, canonicalize=self._canonicalize_tool_name)
        metadata = {
            "tool_call_id": call.tool_call_id,
            "raw_input": getattr(update, "raw_input", None),
            "status": getattr(update, "status", ToolStatus.IN_PROGRESS),
        }
        return CollectedChunk(ChunkType.TOOL_CALL, call.name, metadata, tool=call)

    def _tool_result_chunk(self, update: object) -> CollectedChunk:
        metadata = {
            "tool_call_id": getattr(update, "tool_call_id", ""),
            "status": getattr(update, "status", ToolStatus.COMPLETED),
        }
        raw_output = getattr(update, "raw_output", None)
        content = self._extract_text_from_tool_content(getattr(update, "content", None))
        echo: dict[str, object] | None = None
        from_raw = not content
        if from_raw:  # no readable blocks: the raw output stands in
            content = str(raw_output) if raw_output else ""
        elif (unwrapped := unwrap_structured_result(content, raw_output)) is not None:
            content, echo = unwrapped
        revision = None
        if getattr(update, "title", None) or getattr(update, "raw_input", None):
            revision = ACPToolCall.from_acp(update, canonicalize=self._canonicalize_tool_name)
        return CollectedChunk(
            ChunkType.TOOL_RESULT, content, metadata, from_raw=from_raw, echo=echo, tool=revision
        )

    @staticmethod
    def _block_text(block: object) -> str:
        text = block.get("text") if isinstance(block, dict) else getattr(block, "text", None)
        return str(text) if text else ""

    @staticmethod
    def _extract_text_from_content(update: object) -> str:
        return ACPUpdateParser._block_text(getattr(update, "content", None))

    @staticmethod
    def _extract_text_from_tool_content(content: object) -> str:
        """The text of a tool update's ``content`` items (diffs and terminals are skipped)."""
        if not isinstance(content, list):
            return ""
        texts = (
            ACPUpdateParser._block_text(getattr(item, "content", None))
            for item in content
            if getattr(item, "type", None) == "content"
        )
        return "\n".join(t for t in texts if t)
