"""The room chat tools every Parlant agent is offered."""

from __future__ import annotations

from .._parlant import ToolContext, ToolResult
from ..bandtool import band_tool
from ..mentions import missing_mentions_error, split_mentions
from ..sessiontools import require_session_tools
from ._call import forwarding_tool, run_band_tool

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


band_send_event = forwarding_tool("band_send_event", "sending event", ("content", "message_type"))
band_no_reply = forwarding_tool(
    "band_no_reply", "ending the turn without a reply", optional=("reason",)
)
band_add_participant = forwarding_tool(
    "band_add_participant",
    "adding participant '{identifier}'",
    ("identifier",),
    optional=("role",),
    mention_hints=True,
)
band_remove_participant = forwarding_tool(
    "band_remove_participant",
    "removing participant '{identifier}'",
    ("identifier",),
    mention_hints=True,
)
band_lookup_peers = forwarding_tool("band_lookup_peers", "looking up peers")
band_get_participants = forwarding_tool("band_get_participants", "getting participants")
band_create_chatroom = forwarding_tool(
    "band_create_chatroom", "creating chatroom", optional=("task_id",)
)


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
