"""Band's tools as MCP tool registrations, and the FastMCP server built from a list of them.

A registration is a name, a description, an input model (whose JSON schema the client sees)
and an ``execute`` coroutine; an ``EngineSpec`` names a server and its registrations, and
``build_engine`` turns one into a fresh ``FastMCP`` server (``LocalMCPServer`` serves it).
Band's agent tools take their room from a required ``chat_id`` argument on a multi-room
endpoint, or from the endpoint's path (``/rooms/<room_id>/...``) on a room-bound one; either
way a ``ToolsResolver`` runs the call on the tools of that room, so an agent reaches only the
rooms its adapter holds tools for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import AliasChoices, BaseModel, Field, ValidationError, create_model
from pydantic.json_schema import SkipJsonSchema

from band.adapters._tool_events import run_custom_tool
from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability
from band.runtime._schema import model_description
from band.runtime.custom_tools import CustomToolDef, get_custom_tool_name, invalid_arguments_message
from band.runtime.tools.definitions import Surface, ToolDefinition, iter_tool_definitions

from .resolvers import (
    CHAT_ID_FIELD_NAME,
    ROOM_PATH_PARAM,
    EmbeddedResolver,
    RoomToolResolver,
    ToolCallFailed,
    ToolsResolver,
    dispatch_tool,
    enrich_send_message_error,
    resolve_tool_method,
    room_turn,
)

if TYPE_CHECKING:
    from mcp.server.fastmcp import FastMCP
    from mcp.server.transport_security import TransportSecuritySettings

__all__ = [
    "CHAT_ID_FIELD_NAME",
    "ROOM_PATH_PARAM",
    "CustomToolSpec",
    "EmbeddedResolver",
    "EngineSpec",
    "MCPToolExecutor",
    "MCPToolRegistration",
    "RoomToolResolver",
    "ToolCallFailed",
    "ToolsResolver",
    "build_band_mcp_tool_registrations",
    "build_custom_tool_registration",
    "build_engine",
    "build_resolved_band_mcp_tool_registrations",
    "build_tool_registration",
    "dispatch_tool",
    "enrich_send_message_error",
    "extend_with_chat_id",
    "pin_existing_chat_id",
    "resolve_tool_method",
    "room_turn",
    "validate_unique_tool_names",
]

MCPToolExecutor = Callable[[dict[str, Any]], Awaitable[Any]]
ROOM_ALIASES = AliasChoices(CHAT_ID_FIELD_NAME, ROOM_PATH_PARAM)
_HIDDEN_ROOM: Any = SkipJsonSchema[str | None]  # type: ignore[misc] # accepted, not advertised
CHAT_ID_DESCRIPTION = (
    "ID of the chat room this call acts in (a room you are in). When creating a new room, "
    "use the id of the room you were asked from."
)


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


@dataclass(frozen=True)
class EngineSpec:
    """What ``build_engine`` serves: the server's ``name`` and its registrations."""

    name: str
    tools: tuple[MCPToolRegistration, ...]


@dataclass(frozen=True)
class CustomToolSpec:
    """A custom tool by name: its input model and its handler (the ``(model, handler)`` pair
    ``CustomToolDef`` is also accepted wherever this is)."""

    input_model: type[BaseModel]
    handler: Callable[..., Any]


def extend_with_chat_id(original: type[BaseModel], pinned_room_id: str | None) -> type[BaseModel]:
    """``original`` plus a room field: a required ``chat_id`` (``room_id`` accepted too), or,
    when the room is pinned, the hidden optional one of :func:`pin_existing_chat_id`."""
    if pinned_room_id is not None:
        return pin_existing_chat_id(original)
    extended: type[BaseModel] = create_model(
        f"{original.__name__}WithChatId",
        __base__=original,
        chat_id=(
            str,
            Field(
                min_length=1,
                max_length=200,
                validation_alias=ROOM_ALIASES,
                description=CHAT_ID_DESCRIPTION,
            ),
        ),
    )
    extended.__doc__ = original.__doc__
    return extended


def pin_existing_chat_id(original: type[BaseModel]) -> type[BaseModel]:
    """``original`` with ``chat_id`` left out of the advertised schema but still accepted;
    the room that runs is the pinned one or the endpoint's, whatever a client sends."""
    pinned: type[BaseModel] = create_model(
        f"{original.__name__}Pinned",
        __base__=original,
        chat_id=(
            _HIDDEN_ROOM,
            Field(default=None, max_length=200, validation_alias=ROOM_ALIASES),
        ),
    )
    pinned.__doc__ = original.__doc__
    return pinned


def _room_of(name: str, arguments: dict[str, Any]) -> str | None:
    """The call's ``chat_id`` (or ``room_id``), refused with a clear message when malformed."""
    room = arguments.get(CHAT_ID_FIELD_NAME, arguments.get(ROOM_PATH_PARAM))
    try:
        return _RoomOnly.model_validate({CHAT_ID_FIELD_NAME: room}).chat_id
    except ValidationError as exc:
        raise ToolCallFailed(invalid_arguments_message(name, exc, separator=", ")) from exc


class _RoomOnly(BaseModel):
    """The room field alone, checked before the tool's own arguments."""

    chat_id: str = Field(min_length=1, max_length=200)


def _without_room(arguments: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in arguments.items() if k not in (CHAT_ID_FIELD_NAME, ROOM_PATH_PARAM)}


def build_tool_registration(
    definition: ToolDefinition,
    input_model: type[BaseModel],
    *,
    resolver: ToolsResolver,
    strip_chat_id: bool,
    pinned_room_id: str | None = None,
    room_from_connection: bool = False,
) -> MCPToolRegistration:
    """The registration of one built-in tool, advertising ``input_model``.

    Each call's room is ``pinned_room_id`` when set, else the endpoint's
    (``room_from_connection``), else its ``chat_id`` argument; the resolver runs the call
    with the room taken out of the arguments (``strip_chat_id``, for agent tools, whose
    methods take no room) or left in them (tools with a ``chat_id`` parameter of their own).
    """
    if pinned_room_id is not None and room_from_connection:
        raise ValueError("pinned_room_id and room_from_connection are exclusive")

    async def execute(arguments: dict[str, Any]) -> Any:
        args = dict(arguments)
        if pinned_room_id is not None:
            args[CHAT_ID_FIELD_NAME] = pinned_room_id
        chat_id = _room_of(definition.name, args)
        args = _without_room(args)
        if not strip_chat_id:
            args[CHAT_ID_FIELD_NAME] = chat_id
        return await resolver.invoke(definition, chat_id, args)

    description = model_description(definition.input_model)
    return MCPToolRegistration(
        definition.name, description, input_model, execute, room_from_connection
    )


def build_custom_tool_registration(
    spec: CustomToolSpec | CustomToolDef,
    *,
    get_tools: RoomToolResolver | None = None,
    room_from_connection: bool = False,
) -> MCPToolRegistration:
    """The registration of a custom tool; its handler runs in this process.

    With ``get_tools`` the tool is room-bound: the call names its room (``chat_id``, or the
    endpoint's with ``room_from_connection``) and the tool's declared effect lands on that
    room's turn. The handler never sees the room; it runs even when no turn is in progress.
    """
    tool: CustomToolDef = (
        (spec.input_model, spec.handler) if isinstance(spec, CustomToolSpec) else spec
    )
    input_model = tool[0]
    name = get_custom_tool_name(input_model)
    room_bound = get_tools is not None

    async def execute(arguments: dict[str, Any]) -> str:
        chat_id = _room_of(name, arguments) if room_bound else None
        output, is_error = await run_custom_tool(
            tool, _without_room(arguments), room_turn(get_tools, chat_id)
        )
        if is_error:
            raise ToolCallFailed(output)
        return output

    if room_from_connection:
        model = pin_existing_chat_id(input_model)
    else:
        model = extend_with_chat_id(input_model, None) if room_bound else input_model
    description = model_description(input_model)
    return MCPToolRegistration(name, description, model, execute, room_from_connection)


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
    resolver = EmbeddedResolver(get_tools)
    registrations = [
        build_tool_registration(
            d,
            pin_existing_chat_id(d.input_model)
            if room_from_connection
            else extend_with_chat_id(d.input_model, None),
            resolver=resolver,
            strip_chat_id=True,
            room_from_connection=room_from_connection,
        )
        for d in definitions
        if d.surface == Surface.AGENT
    ]
    registrations += [
        build_custom_tool_registration(
            t, get_tools=get_tools, room_from_connection=room_from_connection
        )
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


def build_engine(
    spec: EngineSpec,
    *,
    host: str = "127.0.0.1",
    transport_security: TransportSecuritySettings | None = None,
    sse_path: str = "/sse",
    message_path: str = "/messages/",
    streamable_http_path: str = "/mcp",
) -> FastMCP:
    """A fresh ``FastMCP`` server listing and running ``spec.tools``.

    Build one per start: its streamable-HTTP session manager runs once. ``host`` is where the
    server will be bound (FastMCP turns on loopback-only DNS-rebinding protection for a
    loopback host when ``transport_security`` is None); the paths are those of its
    ``sse_app()`` and ``streamable_http_app()``. Needs ``mcp`` (``pip install 'openband[acp]'``).
    """
    from ._fastmcp import fastmcp_server

    validate_unique_tool_names(spec.tools)
    return fastmcp_server(
        spec.name,
        spec.tools,
        host=host,
        transport_security=transport_security,
        paths=(sse_path, message_path, streamable_http_path),
    )
