"""Band's tools as native Pydantic AI tools whose dependencies are the room's tools.

Each tool takes ``RunContext[AgentToolsProtocol]``: run the agent with ``deps=tools`` (the
room's ``AgentTools``) and every call reaches that room, through the same validation, turn
effects and error text as every adapter (``band.adapters._tool_events.run_band_tool``);
``tool_call`` / ``tool_result`` events are posted when ``Emit.TOOL_CALLS`` is on.

    agent = Agent(model, deps_type=AgentToolsProtocol, tools=build_band_pydantic_ai_tools(f))
    await agent.run(text, deps=room_tools)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from band._extras import needs_extra
from band.adapters._tool_events import report_tool_call, report_tool_result, run_band_tool
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures
from band.runtime._schema import openai_schema
from band.runtime.custom_tools import CustomToolDef
from band.runtime.tools.registry import selected_tool_definitions

with needs_extra("band.integrations.pydantic_ai needs Pydantic AI", "pydantic-ai"):
    from pydantic_ai import RunContext, Tool

__all__ = ["band_tool", "build_band_pydantic_ai_tools"]


def build_band_pydantic_ai_tools(features: AdapterFeatures) -> list[Tool[AgentToolsProtocol]]:
    """A Pydantic AI tool for each Band tool ``features`` allow (capabilities, filters)."""
    specs = [
        openai_schema(d.name, d.input_model)["function"]
        for d in selected_tool_definitions(features)
    ]
    return [band_tool(spec, features) for spec in specs]


def band_tool(
    spec: dict[str, Any],
    features: AdapterFeatures,
    custom_tools: Sequence[CustomToolDef] = (),
) -> Tool[AgentToolsProtocol]:
    """One tool from an OpenAI function ``spec``; a custom tool's handler comes from
    ``custom_tools``, any other name is a Band tool."""
    name: str = spec["name"]

    async def call(ctx: RunContext[AgentToolsProtocol], **arguments: Any) -> str:
        tools, call_id = ctx.deps, ctx.tool_call_id or ""
        await report_tool_call(tools, features, name, arguments, call_id)
        output, is_error = await run_band_tool(tools, name, arguments, custom_tools)
        await report_tool_result(tools, features, name, output, call_id, is_error=is_error)
        return output

    parameters = spec.get("parameters") or {"type": "object", "properties": {}}
    return Tool.from_schema(call, name, spec.get("description"), parameters, takes_ctx=True)
