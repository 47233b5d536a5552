"""Band's tools as MCP tool registrations, and the MCP server that serves a list of them.

A registration is a name, a description, an input model (whose JSON schema the client sees)
and an ``execute`` coroutine. Band's agent tools take their room from a required ``chat_id``
argument on a multi-room endpoint, or from the endpoint's path (``/rooms/<room_id>/...``) on
a room-bound one; either way the call runs on the tools the resolver returns for that room,
so an agent reaches only the rooms its adapter holds tools for.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import AliasChoices, BaseModel, Field, ValidationError, create_model

from band.adapters._tool_events import run_band_tool
from band.core.exceptions import RoomExecutionStoppedError
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability
from band.runtime._schema import model_description, model_parameters
from band.runtime.custom_tools import (
    CustomToolDef,
    execute_custom_tool,
    get_custom_tool_name,
    invalid_arguments_message,
)
from band.runtime.tools.definitions import Surface, ToolDefinition, iter_tool_definitions

__all__ = [
    "CHAT_ID_FIELD_NAME",
    "ROOM_PATH_PARAM",
    "MCPToolExecutor",
    "MCPToolRegistration",
    "RoomToolResolver",
    "ToolCallFailed",
    "build_band_mcp_tool_registrations",
    "build_engine",
    "build_resolved_band_mcp_tool_registrations",
    "validate_unique_tool_names",
]

logger = logging.getLogger("band.integrations.mcp")

MCPToolExecutor = Callable[[dict[str, Any]], Awaitable[Any]]
RoomToolResolver = Callable[[str], AgentToolsProtocol | None]
CHAT_ID_FIELD_NAME = "chat_id"
ROOM_PATH_PARAM = "room_id"
CHAT_ID_DESCRIPTION = (
    "ID of the chat room this call acts in (a room you are in). When creating a new room, "
    "use the id of the room you were asked from."
)


class ToolCallFailed(Exception):
    """A tool answered with an error the model should read (the MCP result's ``isError``)."""


@dataclass(frozen=True)
class MCPToolRegistration:
    """One tool as the MCP server lists and runs it.

    ``input_model`` is what the client sees (``chat_id`` included where the room comes from
    an argument); ``room_from_connection`` makes the server pass the endpoint's room as
    ``chat_id`` instead.
    """

    name: str
    description: str
    input_model: type[BaseModel]
    execute: MCPToolExecutor
    room_from_connection: bool = False


def with_chat_id(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` plus a required ``chat_id`` (``room_id`` accepted as an alias)."""
    extended: type[BaseModel] = create_model(
        f"{model.__name__}WithChatId",
        __base__=model,
        chat_id=(
            str,
            Field(
                min_length=1,
                max_length=200,
                validation_alias=AliasChoices(CHAT_ID_FIELD_NAME, ROOM_PATH_PARAM),
                description=CHAT_ID_DESCRIPTION,
            ),
        ),
    )
    extended.__doc__ = model.__doc__
    return extended


def _room_of(name: str, model: type[BaseModel], arguments: dict[str, Any]) -> str:
    """The validated ``chat_id`` of a call (its other arguments are the tool's to check)."""
    try:
        validated = model.model_validate(arguments)
    except ValidationError as exc:
        errors = [e for e in exc.errors() if e["loc"][:1] == (CHAT_ID_FIELD_NAME,)]
        if errors:
            raise ToolCallFailed(invalid_arguments_message(name, exc, separator=", ")) from exc
        return str(arguments.get(CHAT_ID_FIELD_NAME) or arguments.get(ROOM_PATH_PARAM))
    return str(getattr(validated, CHAT_ID_FIELD_NAME))


def _tools_of(get_tools: RoomToolResolver, room_id: str) -> AgentToolsProtocol:
    tools = get_tools(room_id)
    if tools is None:
        raise ToolCallFailed(
            f"No Band tools for room {room_id}: the agent is not in that room, or it has no "
            "message in progress there"
        )
    return tools


def _without_room(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k not in (CHAT_ID_FIELD_NAME, ROOM_PATH_PARAM)}


async def _run(
    tools: AgentToolsProtocol, name: str, args: dict[str, Any], custom: Sequence[CustomToolDef]
) -> str:
    output, is_error = await run_band_tool(tools, name, args, custom)
    if is_error:
        raise ToolCallFailed(output)
    return output


def _band_registration(
    definition: ToolDefinition, get_tools: RoomToolResolver, *, room_from_connection: bool
) -> MCPToolRegistration:
    model = definition.input_model if room_from_connection else with_chat_id(definition.input_model)
    checked = with_chat_id(definition.input_model)

    async def execute(arguments: dict[str, Any]) -> str:
        room_id = _room_of(definition.name, checked, arguments)
        return await _run(
            _tools_of(get_tools, room_id), definition.name, _without_room(arguments), ()
        )

    description = model_description(definition.input_model)
    return MCPToolRegistration(definition.name, description, model, execute, room_from_connection)


def _custom_registration(
    tool: CustomToolDef, get_tools: RoomToolResolver, *, room_from_connection: bool
) -> MCPToolRegistration:
    input_model, _ = tool
    name = get_custom_tool_name(input_model)
    checked = with_chat_id(input_model)

    async def execute(arguments: dict[str, Any]) -> str:
        room_id = _room_of(name, checked, arguments)
        tools = get_tools(room_id)
        args = _without_room(arguments)
        if tools is not None:
            return await _run(tools, name, args, (tool,))
        try:  # a custom tool acts outside the room: it runs even with no turn there
            value = await execute_custom_tool(tool, args, turn=None)
        except ValueError as exc:
            raise ToolCallFailed(str(exc)) from exc
        return value if isinstance(value, str) else str(value)

    model = input_model if room_from_connection else checked
    return MCPToolRegistration(
        name, model_description(input_model), model, execute, room_from_connection
    )


def validate_unique_tool_names(registrations: Sequence[MCPToolRegistration]) -> None:
    """Raise ValueError naming every tool name registered twice."""
    seen: set[str] = set()
    twice: set[str] = set()
    for registration in registrations:
        (twice if registration.name in seen else seen).add(registration.name)
    if twice:
        raise ValueError(f"Duplicate MCP tool names: {', '.join(sorted(twice))}")


def build_resolved_band_mcp_tool_registrations(
    *,
    get_tools: RoomToolResolver,
    capabilities: frozenset[Capability] | None = None,
    additional_tools: list[CustomToolDef] | None = None,
    tool_definitions: Sequence[ToolDefinition] | None = None,
    room_from_connection: bool = False,
) -> list[MCPToolRegistration]:
    """Registrations of Band's agent tools (and ``additional_tools``), room by room.

    ``tool_definitions`` (default: those ``capabilities`` switch on) names the tools served;
    every call resolves its room's tools with ``get_tools`` when it runs.
    """
    definitions = (
        list(tool_definitions)
        if tool_definitions is not None
        else iter_tool_definitions(capabilities=capabilities)
    )
    registrations = [
        _band_registration(d, get_tools, room_from_connection=room_from_connection)
        for d in definitions
        if d.surface == Surface.AGENT
    ]
    registrations += [
        _custom_registration(t, get_tools, room_from_connection=room_from_connection)
        for t in additional_tools or []
    ]
    validate_unique_tool_names(registrations)
    return registrations


def build_band_mcp_tool_registrations(
    agent_tools: AgentToolsProtocol,
    *,
    capabilities: frozenset[Capability] | None = None,
    additional_tools: list[CustomToolDef] | None = None,
    tool_definitions: Sequence[ToolDefinition] | None = None,
) -> list[MCPToolRegistration]:
    """Registrations that run every call on one ``agent_tools`` (its room, whatever chat_id)."""
    return build_resolved_band_mcp_tool_registrations(
        get_tools=lambda _room: agent_tools,
        capabilities=capabilities,
        additional_tools=additional_tools,
        tool_definitions=tool_definitions,
    )


def _room_from_request(server: Any) -> str:
    request = getattr(server.request_context, "request", None)
    room = getattr(request, "path_params", {}).get(ROOM_PATH_PARAM) if request else None
    if not room:
        raise ToolCallFailed("this tool takes its room from a room endpoint (/rooms/<id>/...)")
    return str(room)


def build_engine(name: str, registrations: Sequence[MCPToolRegistration]) -> Any:
    """A fresh low-level ``mcp`` server listing and running ``registrations``."""
    from mcp import types
    from mcp.server.lowlevel import Server

    validate_unique_tool_names(registrations)
    by_name = {r.name: r for r in registrations}
    listed = [
        types.Tool(
            name=r.name,
            description=r.description,
            inputSchema=model_parameters(r.input_model),
        )
        for r in registrations
    ]
    server: Any = Server(name)

    async def list_tools() -> list[Any]:
        return listed

    async def call_tool(tool: str, arguments: dict[str, Any] | None) -> Any:
        registration = by_name.get(tool)
        if registration is None:
            return _result(types, f"Unknown tool: {tool}", error=True)
        args = dict(arguments or {})
        try:
            if registration.room_from_connection:
                args[CHAT_ID_FIELD_NAME] = _room_from_request(server)
            text = await registration.execute(args)
        except ToolCallFailed as exc:
            return _result(types, str(exc), error=True)
        except RoomExecutionStoppedError:
            return _result(types, "The room's turn was stopped.", error=True)
        except Exception as exc:
            logger.exception("MCP tool %s failed", tool)
            return _result(types, f"Error executing {tool}: {exc}", error=True)
        return _result(types, text if isinstance(text, str) else str(text), error=False)

    server.list_tools()(list_tools)
    server.call_tool(validate_input=False)(call_tool)
    return server


def _result(types: Any, text: str, *, error: bool) -> Any:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], isError=error)
