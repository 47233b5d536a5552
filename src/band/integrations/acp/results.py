"""Tool results as a room should read them: MCP's repeated structured content removed, and
the several result frames of one call folded into the best one.

An MCP server may answer with readable text followed by the same value as JSON
(``structuredContent``); only an exact repeat is removed. A call may also be reported by
several ``tool_call_update`` frames: the folded result keeps the latest status and the most
readable output (content blocks before stringified ``rawOutput``, longer before shorter).
"""

from __future__ import annotations

import json

from band.integrations.acp.types import ACPToolResult, CollectedChunk

__all__ = ["fold_result", "unwrap_structured_result"]


def _same_json(left: object, right: object) -> bool:
    """JSON equality that keeps ``true`` apart from ``1`` (Python's ``==`` does not)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same_json(v, right[k]) for k, v in left.items())
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same_json, left, right))
    return left == right


def _repeats(content: str, readable: str, structured: dict[str, object]) -> bool:
    """``content`` is ``readable`` then, after whitespace, exactly ``structured`` as JSON."""
    if not content.startswith(readable):
        return False
    try:
        tail = json.loads(content[len(readable) :].strip())
    except json.JSONDecodeError:
        return False
    return _same_json(tail, structured)


def _leading_rendering(content: str, structured: dict[str, object]) -> str | None:
    """The part of ``content`` that renders ``structured`` readably, if it starts with one."""
    only = structured.get("result")
    if list(structured) == ["result"] and isinstance(only, str):
        return only if only and content.startswith(only) else None
    try:
        value, end = json.JSONDecoder().raw_decode(content)
    except json.JSONDecodeError:
        return None
    return content[:end] if _same_json(value, structured) else None


def unwrap_structured_result(
    content: str, raw_output: object
) -> tuple[str, dict[str, object]] | None:
    """``(readable text, structured content)`` when ``content`` ends with an exact JSON
    repeat of ``raw_output["structuredContent"]``; None when nothing is proven repeated."""
    structured = raw_output.get("structuredContent") if isinstance(raw_output, dict) else None
    if not isinstance(structured, dict):
        return None
    readable = _leading_rendering(content, structured)
    if readable is None or not _repeats(content, readable, structured):
        return None
    return readable, structured


def _rank(chunk: CollectedChunk) -> tuple[bool, bool, int]:
    has_text = bool(chunk.content)
    return has_text, has_text and not chunk.from_raw, len(chunk.content)


def fold_result(canonical: CollectedChunk, chunk: CollectedChunk) -> None:
    """Fold a later result frame ``chunk`` into ``canonical`` (changed in place): its status
    if it reports one, and whichever output reads best."""
    status = chunk.metadata.get("status")
    if status is not None:
        canonical.metadata["status"] = status
    if canonical.echo is not None and _repeats(chunk.content, canonical.content, canonical.echo):
        best = canonical  # the new frame only repeats what was already unwrapped
    elif chunk.content and not chunk.from_raw:
        best = chunk
    elif canonical.content and not canonical.from_raw:
        best = canonical
    else:
        best = max(canonical, chunk, key=_rank)
    canonical.content, canonical.from_raw, canonical.echo = best.content, best.from_raw, best.echo
    if isinstance(canonical.tool, ACPToolResult):
        canonical.tool.output = canonical.content
        canonical.tool.status = canonical.metadata.get("status")
