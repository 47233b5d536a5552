"""The room file tools (offered with ``Capability.FILES``)."""

from __future__ import annotations

from .._parlant import ToolContext, ToolResult
from ..bandtool import band_tool
from ..mentions import missing_mentions_error, split_mentions
from ..sessiontools import require_session_tools
from ._call import forwarding_tool, run_band_tool
from .chat import MENTIONS_NOTE

__all__ = ["band_list_room_files", "band_read_room_file", "band_send_room_file"]


band_list_room_files = forwarding_tool(
    "band_list_room_files", "listing room files", optional=("cursor",)
)
band_read_room_file = forwarding_tool("band_read_room_file", "reading room file", ("file_id",))


@band_tool("sending room file", param_notes={"mentions": MENTIONS_NOTE}, mention_hints=True)
async def band_send_room_file(
    context: ToolContext, content: str, filename: str, mentions: str, caption: str = ""
) -> ToolResult:
    recipients = split_mentions(mentions)
    if not recipients:
        return ToolResult(data=missing_mentions_error(require_session_tools(context)))
    return await run_band_tool(
        context,
        "band_send_room_file",
        content=content,
        filename=filename,
        mentions=recipients,
        caption=caption,
    )


TOOLS = (band_list_room_files, band_read_room_file, band_send_room_file)
