"""What a Letta agent is told about Band's tools (the first part of its persona block)."""

from __future__ import annotations

__all__ = ["SEND_EVENT_TOOL_NAMES", "SEND_MESSAGE_TOOL_NAMES", "render_tool_enforcement"]

# Spellings of the send tools on the Band MCP surfaces Letta may have registered: our MCP
# server's band_* names, and the create_agent_chat_* names of the external band-mcp server.
SEND_MESSAGE_TOOL_NAMES: tuple[str, ...] = ("band_send_message", "create_agent_chat_message")
SEND_EVENT_TOOL_NAMES: tuple[str, ...] = ("band_send_event", "create_agent_chat_event")


def render_tool_enforcement(send_tool: str, event_tool: str, *, room_id: str | None = None) -> str:
    """The rules the agent must follow to be heard in a Band room."""
    room = (
        f"\nYour chat room: chat_id {room_id}. Pass it as `chat_id` in every Band tool call.\n"
        if room_id
        else "\nPass the room's `chat_id` (given with each message) in every Band tool call.\n"
    )
    return (
        "## How you answer\n"
        f"People in a Band chat room see only what you send with `{send_tool}` "
        "(mention the person you answer, by handle). Plain text you write is not delivered. "
        f"Use `{event_tool}` only for status updates, and `band_no_reply` when nothing "
        f"needs saying.{room}\n"
    )
