"""The room chat tools every Parlant agent is offered."""

from __future__ import annotations

from .._parlant import ToolContext, ToolResult
from ..bandtool import band_tool
from ..mentions import missing_mentions_error, split_mentions
from ..sessiontools import require_session_tools
from ._call import run_band_tool

__all__ = [
    "band_add_participant",
    "band_create_chatroom",
    "band_get_participants",
    "band_lookup_peers",
    "band_no_reply",
    "band_remove_participant",
    "band_send_event",
    "band_send_message",
]

MENTIONS_NOTE = " Give them as one comma-separated text, e.g. '@alice, @bob/helper'."


@band_tool("sending message", param_notes={"mentions": MENTIONS_NOTE}, mention_hints=True)
async def band_send_message(context: ToolContext, content: str, mentions: str) -> ToolResult:
    recipients = split_mentions(mentions)
    if not recipients:
        return ToolResult(data=missing_mentions_error(require_session_tools(context)))
    return await run_band_tool(context, "band_send_message", content=content, mentions=recipients)


@band_tool("sending event")
async def band_send_event(context: ToolContext, content: str, message_type: str) -> ToolResult:
    return await run_band_tool(
        context, "band_send_event", content=content, message_type=message_type
    )


@band_tool("ending the turn without a reply")
async def band_no_reply(context: ToolContext, reason: str = "") -> ToolResult:
    return await run_band_tool(context, "band_no_reply", reason=reason)


@band_tool("adding participant '{identifier}'", mention_hints=True)
async def band_add_participant(context: ToolContext, identifier: str, role: str = "") -> ToolResult:
    return await run_band_tool(context, "band_add_participant", identifier=identifier, role=role)


@band_tool("removing participant '{identifier}'", mention_hints=True)
async def band_remove_participant(context: ToolContext, identifier: str) -> ToolResult:
    return await run_band_tool(context, "band_remove_participant", identifier=identifier)


@band_tool("looking up peers")
async def band_lookup_peers(context: ToolContext) -> ToolResult:
    return await run_band_tool(context, "band_lookup_peers")


@band_tool("getting participants")
async def band_get_participants(context: ToolContext) -> ToolResult:
    return await run_band_tool(context, "band_get_participants")


@band_tool("creating chatroom")
async def band_create_chatroom(context: ToolContext, task_id: str = "") -> ToolResult:
    return await run_band_tool(context, "band_create_chatroom", task_id=task_id)


TOOLS = (
    band_send_message,
    band_send_event,
    band_no_reply,
    band_add_participant,
    band_remove_participant,
    band_lookup_peers,
    band_get_participants,
    band_create_chatroom,
)
