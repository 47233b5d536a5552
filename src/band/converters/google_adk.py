"""``GoogleADKHistoryConverter``: room history as ``{"role": "user"|"model", "content"}``
entries, rendered as the text transcript ``GoogleADKAdapter`` replays to a fresh runner.

``content`` is the text of a line, or a list of ``function_call`` / ``function_response``
blocks for a tool exchange (a call left unanswered gets the interrupted error). Needs no
framework: the entries are plain dicts.
"""

from __future__ import annotations

import json
from typing import Any

from .tool_history import FoldedHistoryConverter, Said, ToolExchange

__all__ = ["GoogleADKHistoryConverter", "GoogleADKMessages"]

GoogleADKMessages = list[dict[str, Any]]

# A tool result longer than this is cut in the transcript, so no single result dominates it.
_MAX_TOOL_OUTPUT_PREVIEW = 200


class GoogleADKHistoryConverter(FoldedHistoryConverter[dict[str, Any]]):
    """Own replies become ``model`` entries with the bare text, everyone else's ``user``
    entries as ``[name]: text``; tool events become a ``model`` entry of ``function_call``
    blocks and a ``user`` entry of ``function_response`` blocks.
    """

    def said(self, line: Said) -> GoogleADKMessages:
        return [{"role": "model" if line.role == "assistant" else "user", "content": line.text}]

    def exchange(self, tools: ToolExchange) -> GoogleADKMessages:
        calls, results = tools.blocks(
            lambda call: {
                "type": "function_call",
                "id": call.tool_call_id,
                "name": call.name,
                "args": call.args,
            },
            lambda call, result: {
                "type": "function_response",
                "tool_call_id": call.tool_call_id,
                "name": call.name,
                "output": result.output,
            },
        )
        return [{"role": "model", "content": calls}, {"role": "user", "content": results}]

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
