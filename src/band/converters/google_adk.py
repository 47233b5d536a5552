"""``GoogleADKHistoryConverter``: room history as ``{"role": "user"|"model", "content"}``
entries, rendered as the text transcript ``GoogleADKAdapter`` replays to a fresh runner.

``content`` is the text of a line, or a list of ``function_call`` / ``function_response``
blocks for a tool exchange (a call left unanswered gets the interrupted error). Needs no
framework: the entries are plain dicts.
"""

from __future__ import annotations

import json
from typing import Any

from .tool_history import Said, fold_history

__all__ = ["GoogleADKHistoryConverter", "GoogleADKMessages"]

GoogleADKMessages = list[dict[str, Any]]

# A tool result longer than this is cut in the transcript, so no single result dominates it.
_MAX_TOOL_OUTPUT_PREVIEW = 200


class GoogleADKHistoryConverter:
    """Own replies become ``model`` entries with the bare text, everyone else's ``user``
    entries as ``[name]: text``; tool events become a ``model`` entry of ``function_call``
    blocks and a ``user`` entry of ``function_response`` blocks.
    """

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

    def convert(self, raw: list[dict[str, Any]]) -> GoogleADKMessages:
        entries: GoogleADKMessages = []
        for item in fold_history(raw, self.agent_name):
            if isinstance(item, Said):
                role = "model" if item.role == "assistant" else "user"
                entries.append({"role": role, "content": item.text})
                continue
            calls: list[dict[str, Any]] = []
            results: list[dict[str, Any]] = []
            for call, result in item.paired():
                calls.append(
                    {
                        "type": "function_call",
                        "id": call.tool_call_id,
                        "name": call.name,
                        "args": call.args,
                    }
                )
                block: dict[str, Any] = {
                    "type": "function_response",
                    "tool_call_id": call.tool_call_id,
                    "name": call.name,
                    "output": result.output,
                }
                if result.is_error:
                    block["is_error"] = True
                results.append(block)
            entries.append({"role": "model", "content": calls})
            entries.append({"role": "user", "content": results})
        return entries

    def format_transcript(self, history: GoogleADKMessages) -> str:
        """The entries as transcript lines: own replies as ``[<agent name>]: text``, other
        lines as they are, tool blocks as ``[Tool Call] name (args)`` and
        ``[Tool Result] name: output`` (output cut at 200 characters)."""
        lines: list[str] = []
        for entry in history:
            content = entry.get("content", "")
            if isinstance(content, str):
                own = entry.get("role") == "model" and self.agent_name
                lines.append(f"[{self.agent_name}]: {content}" if own else content)
                continue
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict):
                    continue
                name = block.get("name", "unknown")
                if block.get("type") == "function_call":
                    args = json.dumps(block.get("args", {}), default=str)
                    lines.append(f"[Tool Call] {name} ({args})")
                elif block.get("type") == "function_response":
                    output = str(block.get("output", ""))
                    if len(output) > _MAX_TOOL_OUTPUT_PREVIEW:
                        output = output[:_MAX_TOOL_OUTPUT_PREVIEW] + "..."
                    lines.append(f"[Tool Result] {name}: {output}")
        return "\n".join(lines)
