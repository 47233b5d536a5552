"""Band room tools (and custom tools) as CrewAI ``BaseTool`` objects.

``build_band_crewai_tools`` wraps every enabled platform tool of the catalog
(:mod:`band.integrations.crewai.catalog`) and every custom tool. A wrapper is built once and
finds its room at call time through ``get_context`` (each adapter keeps its own ContextVar);
CrewAI calls ``_run`` synchronously from a worker thread, so the work is handed to the
agent's loop (``fallback_loop``) through :func:`run_async`, as a tool call of the context's
:class:`ToolTurn` when it has one. A failure comes back to the model as
``{"status": "error", "message": ...}`` and is reported as an error result.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from band.adapters._tool_events import run_custom_tool
from band.core.exceptions import BandToolError, RoomExecutionStoppedError
from band.core.protocols import AgentToolsProtocol
from band.core.tool_filter import filter_tool_schemas
from band.core.types import AdapterFeatures, Capability
from band.runtime.custom_tools import CustomToolDef, get_custom_tool_name
from band.runtime.tools import (
    EVENT_TOOL_NAMES,
    BandTool,
    append_available_mention_handles,
    get_band_tool_category,
    get_tool_description,
    withheld_tool_names,
)

from . import reporting
from .catalog import PLATFORM_TOOLS, Invocation, ToolSpec, serialize_success_result, vision_sentinel
from .reporting import *  # noqa: F403  (its __all__, added below)
from .reporting import (
    CrewAIToolContext,
    CrewAIToolReporter,
    ReplyTracker,
)
from .runtime import run_async

if TYPE_CHECKING:
    from crewai.tools import BaseTool

__all__ = ["build_band_crewai_tools", "serialize_success_result", "vision_sentinel"]
__all__ += reporting.__all__

logger = logging.getLogger(__name__)
INSTALL_HINT = "the CrewAI integration needs CrewAI: pip install 'openband[crewai]'"
GetContext = Callable[[], CrewAIToolContext | None]


def _base_tool() -> type[BaseTool]:
    """CrewAI's ``BaseTool`` (imported on first use: this module imports without CrewAI)."""
    try:
        from crewai.tools import BaseTool
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    base: type[BaseTool] = BaseTool
    return base


def _error(message: str) -> str:
    return json.dumps({"status": "error", "message": message})


def _run_in_room(
    name: str,
    work: Callable[[AgentToolsProtocol], Awaitable[str]],
    arguments: Mapping[str, Any],
    get_context: GetContext,
    reporter: CrewAIToolReporter,
    fallback_loop: asyncio.AbstractEventLoop | None,
) -> str:
    """Run one call in the current room from CrewAI's thread; the text the model reads."""
    context = get_context()
    if context is None:
        return _error("no Band room is running: the tool was called outside a turn")
    tools = context.tools

    async def attempt() -> str:
        try:
            return await work(tools)
        except RoomExecutionStoppedError:
            raise
        except Exception as exc:  # the model hears about it; the turn goes on
            message = str(exc)
            if name == BandTool.SEND_MESSAGE and isinstance(exc, ValueError | BandToolError):
                participants = list(getattr(tools, "participants", []) or [])
                agent_id = getattr(tools, "agent_id", None)
                message = append_available_mention_handles(message, participants, agent_id)
            logger.warning("%s failed in room %s: %s", name, context.room_id, message)
            if name not in EVENT_TOOL_NAMES:
                await reporter.report_result(tools, name, message, is_error=True)
            return _error(message)

    run = attempt() if context.tool_turn is None else context.tool_turn.run_tool(attempt)
    output = run_async(run, fallback_loop=fallback_loop)
    if context.reply_tracker is not None:
        _track(context.reply_tracker, name, output, arguments)
    return output


def _track(tracker: ReplyTracker, name: str, output: str, arguments: Mapping[str, Any]) -> None:
    """Note that a tool ran, and what a successful ``band_send_message`` said."""
    tracker.any_tool_ran = True
    if name != BandTool.SEND_MESSAGE:
        return
    try:
        ok = json.loads(output).get("status") == "success"
    except (ValueError, AttributeError):
        ok = False
    if ok:
        text = str(arguments.get("content", ""))
        handles = arguments.get("mentions") or []
        to = " ".join(handles) if isinstance(handles, list) else str(handles)
        tracker.posts.append(f"(to {to}) {text}" if to else text)


def _wrap(
    name: str,
    description: str,
    schema: type[BaseModel],
    work: Callable[[AgentToolsProtocol, dict[str, Any]], Awaitable[str]],
    get_context: GetContext,
    reporter: CrewAIToolReporter,
    fallback_loop: asyncio.AbstractEventLoop | None,
) -> BaseTool:
    class BandCrewAITool(_base_tool()):  # type: ignore[misc]
        def _run(self, *_args: Any, **kwargs: Any) -> str:
            arguments = {
                k: v.model_dump() if isinstance(v, BaseModel) else v for k, v in kwargs.items()
            }
            return _run_in_room(
                name,
                lambda tools: work(tools, arguments),
                arguments,
                get_context,
                reporter,
                fallback_loop,
            )

    tool = BandCrewAITool(name=name, description=description or name, args_schema=schema)
    tool.cache_function = lambda *_args, **_kwargs: False  # every call acts on the room
    return tool


def _platform(spec: ToolSpec, reporter: CrewAIToolReporter) -> Callable[..., Awaitable[str]]:
    async def work(tools: AgentToolsProtocol, arguments: dict[str, Any]) -> str:
        return await spec.invoke(Invocation(tools=tools, reporter=reporter), arguments)

    return work


def _custom(
    definition: CustomToolDef, reporter: CrewAIToolReporter
) -> Callable[..., Awaitable[str]]:
    name = get_custom_tool_name(definition[0])

    async def work(tools: AgentToolsProtocol, arguments: dict[str, Any]) -> str:
        await reporter.report_call(tools, name, arguments)
        output, is_error = await run_custom_tool(definition, arguments, tools.turn)
        await reporter.report_result(tools, name, output, is_error=is_error)
        if is_error:
            return _error(output)
        return json.dumps({"status": "success", "result": output}, default=str)

    return work


def build_band_crewai_tools(
    *,
    get_context: GetContext,
    reporter: CrewAIToolReporter,
    capabilities: frozenset[Capability] = frozenset(),
    features: AdapterFeatures | None = None,
    custom_tools: list[CustomToolDef] | None = None,
    fallback_loop: asyncio.AbstractEventLoop | None = None,
) -> list[BaseTool]:
    """The platform tools the features (else ``capabilities``) enable, then custom tools.

    Chat tools are always there; contact, memory, file and task tools follow their
    capability, and ``include_tools`` / ``exclude_tools`` / categories filter the rest.
    """
    active = features or AdapterFeatures(capabilities=capabilities)
    withheld = withheld_tool_names(active.capabilities)
    specs = filter_tool_schemas(
        [spec for spec in PLATFORM_TOOLS if spec.name not in withheld],
        active,
        get_name=lambda spec: str(spec.name),
        get_category=lambda spec: get_band_tool_category(spec.name),
    )
    built = [
        _wrap(
            str(spec.name),
            get_tool_description(spec.name),
            spec.args_schema,
            _platform(spec, reporter),
            get_context,
            reporter,
            fallback_loop,
        )
        for spec in specs
    ]
    for definition in custom_tools or ():
        model = definition[0]
        built.append(
            _wrap(
                get_custom_tool_name(model),
                model.__doc__ or f"Execute {get_custom_tool_name(model)}",
                model,
                _custom(definition, reporter),
                get_context,
                reporter,
                fallback_loop,
            )
        )
    return built
