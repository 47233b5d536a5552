"""Band room tools (and custom tools) as CrewAI ``BaseTool`` objects.

The tools are built once per adapter; each call finds its room through
:func:`current_context` (a ContextVar set around ``kickoff_async``, which CrewAI's worker
threads inherit) and runs on the agent's event loop through the context's ``execute``
(the adapter's: run, report, record the turn effect). CrewAI gives a tool no call id, so
each call gets one of ours, to pair its ``tool_call`` and ``tool_result`` events.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, create_model, field_validator

from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures
from band.runtime._schema import model_description
from band.runtime.custom_tools import CustomToolDef, get_custom_tool_name
from band.runtime.tools import TOOL_MODELS, BandTool
from band.runtime.tools.schemas import enabled_tool_names

from .runtime import run_async

if TYPE_CHECKING:
    from crewai.tools import BaseTool

INSTALL_HINT = "the CrewAI integration needs CrewAI: pip install 'openband[crewai]'"


def _base_tool() -> type[BaseTool]:
    """CrewAI's ``BaseTool`` (imported on first use, so this module imports without CrewAI)."""
    try:
        from crewai.tools import BaseTool
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    base: type[BaseTool] = BaseTool
    return base


__all__ = [
    "CrewAIToolContext",
    "ReplyTracker",
    "bound_context",
    "build_band_crewai_tools",
    "current_context",
    "lenient_mentions",
]

_MENTIONING = (BandTool.SEND_MESSAGE, BandTool.SEND_ROOM_FILE)


@dataclass
class ReplyTracker:
    """What one turn's tools did: whether any ran, what ``band_send_message`` said."""

    posts: list[str] = field(default_factory=list)
    any_tool_ran: bool = False


# (tool name, arguments, call id) -> (output text, is_error)
Execute = Callable[[str, dict[str, Any], str], Awaitable[tuple[str, bool]]]


@dataclass(frozen=True)
class CrewAIToolContext:
    """The room a CrewAI tool call belongs to, and how to run it (on ``loop``)."""

    room_id: str
    tools: AgentToolsProtocol
    loop: asyncio.AbstractEventLoop
    execute: Execute
    tracker: ReplyTracker = field(default_factory=ReplyTracker)


_context: ContextVar[CrewAIToolContext | None] = ContextVar("band_crewai_room", default=None)


def current_context() -> CrewAIToolContext | None:
    """The room whose turn is running in this context, or None outside a turn."""
    return _context.get()


@contextmanager
def bound_context(context: CrewAIToolContext) -> Iterator[CrewAIToolContext]:
    """Bind ``context`` for the CrewAI run inside the ``with`` block."""
    token = _context.set(context)
    try:
        yield context
    finally:
        _context.reset(token)


def lenient_mentions(value: Any) -> Any:
    """Mentions as a list, also from a JSON string or ``"[@a, @b]"`` (small models send them)."""
    if not isinstance(value, str):
        return [] if value is None else value
    try:
        decoded = json.loads(value)
    except ValueError:
        decoded = None
    if isinstance(decoded, list):
        return [str(item) for item in decoded]
    parts = value.strip().strip("[]").split(",")
    return [p.strip().strip("'\"") for p in parts if p.strip().strip("'\"")]


def _args_schema(name: str) -> type[BaseModel]:
    model = TOOL_MODELS[name]
    if name not in _MENTIONING:
        return model
    check = field_validator("mentions", mode="before")(staticmethod(lenient_mentions))
    return create_model(model.__name__, __base__=model, __validators__={"lenient": check})


async def _call(context: CrewAIToolContext, name: str, args: dict[str, Any]) -> str:
    output, is_error = await context.execute(name, args, f"crewai_{uuid.uuid4().hex[:16]}")
    context.tracker.any_tool_ran = True
    if name == BandTool.SEND_MESSAGE and not is_error:
        mentions = " ".join(str(m) for m in args.get("mentions") or [])
        text = str(args.get("content", ""))
        context.tracker.posts.append(f"(to {mentions}) {text}" if mentions else text)
    return output


def _make_tool(name: str, description: str, schema: type[BaseModel]) -> BaseTool:
    class BandCrewAITool(_base_tool()):  # type: ignore[misc]
        def _run(self, *args: Any, **kwargs: Any) -> str:
            context = current_context()
            if context is None:
                return json.dumps({"status": "error", "message": "no Band room is running"})
            arguments = {
                k: v.model_dump() if isinstance(v, BaseModel) else v for k, v in kwargs.items()
            }
            return run_async(_call(context, name, arguments), context.loop)

    tool = BandCrewAITool(name=name, description=description or name, args_schema=schema)
    tool.cache_function = lambda *_args, **_kwargs: False  # every call acts on the room
    return tool


def build_band_crewai_tools(
    features: AdapterFeatures, custom_tools: Sequence[CustomToolDef] = ()
) -> list[BaseTool]:
    """The Band tools the features enable, then the custom tools, as CrewAI tools."""
    built = [
        _make_tool(name, model_description(TOOL_MODELS[name]), _args_schema(name))
        for name in enabled_tool_names(features.capabilities)
    ]
    built += [
        _make_tool(get_custom_tool_name(model), model_description(model), model)
        for model, _ in custom_tools
    ]
    return built
