"""Running one Band tool for a Parlant call: the room's tools execute it by name, so
argument validation and the turn's effects are the same as for every other adapter.

Most Parlant tools only hand their text arguments on: ``forwarding_tool`` declares one from
its name and parameters instead of a function written out for each.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from .._parlant import ToolContext, ToolResult
from ..bandtool import BandToolSpec, band_tool
from ..sessiontools import require_session_tools

__all__ = ["forwarding_tool", "run_band_tool"]

_PARAMETER = inspect.Parameter.POSITIONAL_OR_KEYWORD


async def run_band_tool(context: ToolContext, name: str, **arguments: Any) -> ToolResult:
    """Execute ``name`` in the room bound to ``context``'s session; omitted arguments (Parlant
    sends ``""`` or ``None``) are left out so the tool's own defaults apply."""
    tools = require_session_tools(context)
    given = {k: v for k, v in arguments.items() if v not in ("", None)}
    return ToolResult(data=await tools.execute_tool_call(name, given))


def forwarding_tool(
    name: str,
    failure: str,
    required: Sequence[str] = (),
    *,
    optional: Sequence[str] = (),
    mention_hints: bool = False,
) -> BandToolSpec:
    """The spec of a Parlant tool ``name(context, *required, *optional="")`` (every argument
    a text) that runs the room's tool ``name`` with them; ``failure`` as in ``band_tool``."""
    parameters = [
        inspect.Parameter("context", _PARAMETER, annotation=ToolContext),
        *(inspect.Parameter(p, _PARAMETER, annotation=str) for p in required),
        *(inspect.Parameter(p, _PARAMETER, default="", annotation=str) for p in optional),
    ]
    signature = inspect.Signature(parameters, return_annotation=ToolResult)

    async def forward(*args: Any, **kwargs: Any) -> ToolResult:
        arguments = signature.bind(*args, **kwargs).arguments
        context = arguments.pop("context")
        return await run_band_tool(context, name, **arguments)

    forward.__name__ = forward.__qualname__ = name
    forward.__signature__ = signature  # type: ignore[attr-defined]
    forward.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": ToolResult}
    return band_tool(failure, mention_hints=mention_hints)(forward)
