"""The system prompt of a Claude Code agent in a Band room.

Claude Code keeps its own system prompt (the ``claude_code`` preset: how to use its tools)
and gets Band's appended: who the agent is, the base instructions, the capability sections,
how to answer in the room (only through the ``band`` MCP server's ``band_send_message``),
and the developer's custom section. The result is the SDK's ``SystemPromptPreset`` mapping.
"""

from __future__ import annotations

from typing import Any

from band.core.types import AdapterFeatures
from band.runtime.prompts import render_system_prompt
from band.runtime.tools.registry import MCP_TOOL_PREFIX

__all__ = ["ROOM_CONTEXT", "generate_claude_sdk_agent_prompt"]

ROOM_CONTEXT = (
    "## Room Context\n\n"
    f"Reply in the room with the {MCP_TOOL_PREFIX}band_send_message tool (Band's tools come "
    "from the `band` MCP server), or call band_no_reply when nothing needs saying. Text you "
    "write without a tool is not shown to anyone."
)


def generate_claude_sdk_agent_prompt(
    agent_name: str,
    agent_description: str = "An AI assistant",
    custom_section: str | None = None,
    features: AdapterFeatures | None = None,
) -> Any:
    """Claude Code's preset with Band's instructions for ``agent_name`` appended."""
    appended = render_system_prompt(
        agent_name=agent_name,
        agent_description=agent_description,
        custom_section=custom_section or "",
        features=features or AdapterFeatures(),
        extra_sections=[ROOM_CONTEXT],
    )
    return {"type": "preset", "preset": "claude_code", "append": appended}
