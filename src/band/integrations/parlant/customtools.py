"""Your own ``(InputModel, handler)`` tools as Parlant tools.

Parlant reads a tool's parameters from its signature and sends every argument as text: each
field of the model becomes a text parameter (optional ones default to ``""``, meaning
omitted); a collection field takes comma-separated text. The handler then gets the model
validated in lax mode, and a successful call records its turn effect.
"""

from __future__ import annotations

import inspect
import logging
from typing import Annotated, Any, get_args, get_origin

from band.runtime.custom_tools import CustomToolDef, execute_custom_tool, get_custom_tool_name

from ._parlant import ToolContext, ToolParameterOptions, ToolResult, p
from .guard import CONTEXT_PARAMETER
from .mentions import split_mentions
from .sessiontools import NO_SESSION_TOOLS_ERROR, get_session_tools

__all__ = ["build_custom_tool"]

logger = logging.getLogger(__name__)


def build_custom_tool(tool_def: CustomToolDef) -> Any:
    """A new Parlant ``ToolEntry`` running ``tool_def`` in the room of the calling session."""
    model, _handler = tool_def
    name = get_custom_tool_name(model)

    async def run(context: Any, **raw: Any) -> Any:
        tools = get_session_tools(str(context.session_id))
        if tools is None:
            return ToolResult(data=NO_SESSION_TOOLS_ERROR)
        logger.debug("[Parlant Tool] %s %r", name, raw)
        try:
            result = await execute_custom_tool(
                tool_def, _arguments(model, raw), turn=tools.turn, strict=False
            )
        except Exception as exc:  # the engine would hide it; the model gets the text instead
            logger.warning("Parlant custom tool %s failed: %s", name, exc)
            result = f"Error running {name}: {exc}"
        return ToolResult(data=result)

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    parameters = [inspect.Parameter(CONTEXT_PARAMETER, kind, annotation=ToolContext)]
    for field_name, info in model.model_fields.items():
        description = info.description or f"{field_name} ({_type_label(info.annotation)})"
        annotation = Annotated[str, ToolParameterOptions(description=description)]
        default = {} if info.is_required() else {"default": ""}
        parameters.append(inspect.Parameter(field_name, kind, annotation=annotation, **default))
    run.__signature__ = inspect.Signature(parameters, return_annotation=ToolResult)  # type: ignore[attr-defined]
    run.__name__ = run.__qualname__ = name
    run.__doc__ = inspect.cleandoc(model.__doc__ or "") or f"The {name} tool."
    return p.tool(run)


def _arguments(model: Any, raw: dict[str, Any]) -> dict[str, Any]:
    """Parlant's text arguments: omitted ones dropped, collections split on commas."""
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if value in ("", None):
            continue
        info = model.model_fields.get(key)
        if info is not None and isinstance(value, str) and _is_collection(info.annotation):
            args[key] = split_mentions(value)
        else:
            args[key] = value
    return args


def _is_collection(annotation: Any) -> bool:
    if get_origin(annotation) in (list, set, tuple, frozenset):
        return True
    return any(_is_collection(arg) for arg in get_args(annotation) if arg is not type(None))


def _type_label(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation)
    return text.replace("typing.", "")
