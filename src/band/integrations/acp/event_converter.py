"""``EventConverter``: a room message as the ACP ``session/update`` an editor shows."""

from __future__ import annotations

import logging
from typing import Any

from band._extras import needs_extra
from band.converters.parsing import parse_tool_call, parse_tool_result
from band.core.types import PlatformMessage
from band.runtime.formatters import strip_leading_mentions

with needs_extra("the ACP server needs agent-client-protocol", "acp"):
    from acp import (
        plan_entry,
        start_tool_call,
        text_block,
        tool_content,
        update_agent_message_text,
        update_agent_thought_text,
        update_plan,
        update_tool_call,
    )

__all__ = ["EventConverter"]

logger = logging.getLogger("band.integrations.acp.server")


class EventConverter:
    """Text -> agent message; thought -> agent thought; tool call/result -> tool call start
    and update; error -> an ``[Error]`` message; task -> a plan entry (usage records are
    skipped). Anything else: None."""

    @staticmethod
    def convert(msg: PlatformMessage) -> Any | None:
        kind = msg.message_type
        if kind == "text":
            return update_agent_message_text(strip_leading_mentions(msg.content))
        if kind == "thought":
            return update_agent_thought_text(msg.content)
        if kind == "error":
            return update_agent_message_text(f"[Error] {msg.content}")
        if kind == "tool_call" and (call := parse_tool_call(msg.content)) is not None:
            return start_tool_call(
                call.tool_call_id,
                call.name,
                kind="other",
                status="in_progress",
                raw_input=call.args,
            )
        if kind == "tool_result" and (result := parse_tool_result(msg.content)) is not None:
            return update_tool_call(
                result.tool_call_id,
                status="failed" if result.is_error else "completed",
                raw_output=result.output,
                content=[tool_content(text_block(result.output))],
            )
        if kind == "task" and not (isinstance(msg.metadata, dict) and "band_usage" in msg.metadata):
            return update_plan([plan_entry(msg.content, status="in_progress")])
        logger.debug("No ACP update for a %s message", kind)
        return None
