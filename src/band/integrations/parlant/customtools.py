"""Your own ``(InputModel, handler)`` tools as Parlant tools.

Each field is a ``str`` parameter (Parlant casts nothing) advertised with the type
``customschema`` derives from the input model; the handler gets the model validated in lax
mode from the delivered text, a successful call records its turn effect, and a failure comes
back to the model as text (``guard``).
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
from typing import Any

from band.runtime.custom_tools import CustomToolDef, execute_custom_tool

from ._parlant import ToolContext, ToolResult, p
from .customschema import describe_custom_tool, parse_delivered
from .guard import CONTEXT_PARAMETER, guard_failures
from .sessiontools import require_session_tools

__all__ = ["build_custom_tool"]

logger = logging.getLogger(__name__)


def build_custom_tool(tool_def: CustomToolDef) -> Any:
    """A new Parlant ``ToolEntry`` running ``tool_def`` in the room of the calling session."""
    described = describe_custom_tool(tool_def[0])

    async def run(context: ToolContext, **delivered: Any) -> ToolResult:
        tools = require_session_tools(context)
        given = {k: v for k, v in delivered.items() if v not in ("", None)}
        arguments = parse_delivered(given, described.fields)
        result = await execute_custom_tool(tool_def, arguments, turn=tools.turn, strict=False)
        return ToolResult(data=result)

    run.__name__ = run.__qualname__ = described.name
    run.__doc__ = described.description or f"The {described.name} tool."
    context = inspect.Parameter(
        CONTEXT_PARAMETER, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=ToolContext
    )
    run.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [context, *(field.parameter for field in described.fields)],
        return_annotation=ToolResult,
    )
    entry = p.tool(guard_failures(run, failure=f"running {described.name}", mention_hints=False))
    # p.tool described every field as the str it is passed as; advertise the model's types,
    # keeping the options p.tool derived.
    parameters = {
        field.parameter.name: (field.descriptor, entry.tool.parameters[field.parameter.name][1])
        for field in described.fields
    }
    return dataclasses.replace(entry, tool=dataclasses.replace(entry.tool, parameters=parameters))
