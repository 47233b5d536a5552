"""Codex's tool-like items (commands, file changes, MCP calls, searches, ...) as tool events.

A room sees each such item as a ``tool_call`` when it starts and a ``tool_result`` when it
completes; ``CodexToolItem`` is what the completed one carries.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from band.adapters._tool_events import as_text
from band.integrations.codex.types import CodexItemType

__all__ = ["CodexToolItem", "call_of", "completed_tool_item", "outcome_of"]

_I = CodexItemType


class CodexToolItem(NamedTuple):
    """``(name, args, output)`` of one completed tool-like item, as the room's
    ``tool_result`` shows it (``output`` is text: JSON for a structured result)."""

    name: str
    args: dict[str, Any]
    output: str


def call_of(item: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The tool name and arguments the room is shown for ``item``; None when it is not a
    tool-like item (a message, reasoning, a plan, ...)."""
    kind = item.get("type")
    if kind == _I.COMMAND_EXECUTION:
        return "command_execution", {"command": item.get("command"), "cwd": item.get("cwd")}
    if kind == _I.FILE_CHANGE:
        changes = [
            {"path": c.get("path"), "kind": c.get("kind")} for c in item.get("changes") or []
        ]
        return "file_change", {"changes": changes}
    if kind == _I.MCP_TOOL_CALL:
        return f"{item.get('server')}.{item.get('tool')}", dict(item.get("arguments") or {})
    if kind == _I.WEB_SEARCH:
        return "web_search", {"query": item.get("query")}
    if kind == _I.IMAGE_VIEW:
        return "view_image", {"path": item.get("path")}
    if kind == _I.COLLAB_AGENT_TOOL_CALL:
        return f"collab.{item.get('tool')}", {"prompt": item.get("prompt")}
    return None


def outcome_of(item: dict[str, Any]) -> tuple[Any, bool]:
    """A completed tool-like item's output and whether it failed (declined included)."""
    status = item.get("status")
    kind = item.get("type")
    if status == "declined":
        return "Declined in the room: it did not run.", True
    if kind == _I.COMMAND_EXECUTION:
        output = item.get("aggregatedOutput") or ""
        code = item.get("exitCode")
        return output or f"(no output; exit code {code})", status != "completed" or code not in (
            0,
            None,
        )
    if kind == _I.MCP_TOOL_CALL:
        error = item.get("error")
        return (error or item.get("result") or {}), error is not None
    if kind == _I.FILE_CHANGE:
        paths = ", ".join(str(c.get("path")) for c in item.get("changes") or [])
        return f"{status}: {paths}", status != "completed"
    return status or "completed", status == "failed"


def completed_tool_item(item: dict[str, Any]) -> tuple[CodexToolItem, bool] | None:
    """``item`` (an ``item/completed`` payload) as a ``CodexToolItem`` and whether it failed;
    None when it is not tool-like."""
    call = call_of(item)
    if call is None:
        return None
    output, is_error = outcome_of(item)
    return CodexToolItem(call[0], call[1], as_text(output)), is_error
