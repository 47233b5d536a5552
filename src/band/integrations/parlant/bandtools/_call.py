"""Running one Band tool for a Parlant call: the room's tools execute it by name, so
argument validation and the turn's effects are the same as for every other adapter."""

from __future__ import annotations

from typing import Any

from .._parlant import ToolContext, ToolResult
from ..sessiontools import require_session_tools


async def run_band_tool(context: ToolContext, name: str, **arguments: Any) -> ToolResult:
    """Execute ``name`` in the room bound to ``context``'s session; omitted arguments (Parlant
    sends ``""`` or ``None``) are left out so the tool's own defaults apply."""
    tools = require_session_tools(context)
    given = {k: v for k, v in arguments.items() if v not in ("", None)}
    return ToolResult(data=await tools.execute_tool_call(name, given))
