"""The room view's local stdio MCP server (``band-room-view``): four tools and the view.

``band_join_room`` / ``band_create_and_open_room`` open a room and mount the live view,
``band_show_room`` mounts it again, ``band_wait_for_room_event`` is the monitor both the
agent's loop and the view's loop call. Each tool answers with a summary for the model and the
transcript as structured content for the view. Needs the ``desktop`` extra (``mcp``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

try:
    from mcp.server.lowlevel import Server
    from mcp.server.lowlevel.helper_types import ReadResourceContents
    from mcp.server.stdio import stdio_server
    from mcp.types import Resource, TextContent, Tool
except ImportError as exc:  # pragma: no cover - exercised where mcp is absent
    raise ModuleNotFoundError(
        "the Claude Desktop room view needs the MCP SDK: pip install 'openband[desktop]'",
        name="mcp",
    ) from exc

from band.client.rest import AsyncRestClient
from band.integrations.desktop_app import prompts
from band.integrations.desktop_app.event_relay import DesktopRoomEventRelay
from band.integrations.desktop_app.logs import configure as configure_logging
from band.integrations.desktop_app.room import AgentIdentity, RoomTranscript
from band.integrations.desktop_app.service import AgentTranscriptTools, RoomTranscriptService
from band.integrations.desktop_app.settings import DesktopRoomViewSettings
from band.integrations.desktop_app.tools import (
    CreateAndOpenRoomInput,
    JoinRoomInput,
    MonitorCaller,
    RoomTool,
    ShowRoomInput,
    WaitForRoomEventInput,
)
from band.integrations.desktop_app.view import room_view_fingerprint, room_view_html

__all__ = [
    "ROOM_VIEW_MIME_TYPE",
    "ROOM_VIEW_URI",
    "TOOL_SPECS",
    "UI_EXTENSION_ID",
    "DesktopToolSpec",
    "WorkflowResult",
    "connected_agent_service",
    "create_server",
    "entry_point",
    "inline",
    "room_view_tools",
    "run",
]

logger = logging.getLogger(__name__)

# The contract with Desktop and the view; the URI changes whenever the document does.
ROOM_VIEW_URI = f"ui://band/room-transcript/{room_view_fingerprint()}"
ROOM_VIEW_MIME_TYPE = "text/html;profile=mcp-app"
UI_EXTENSION_ID = "io.modelcontextprotocol/ui"


@dataclass
class WorkflowResult:
    """What a tool's workflow produced: the room, the summary, the transcript."""

    room_id: str
    summary: str = ""
    transcript: RoomTranscript | None = None
    requested_room: str | None = None


async def _open(service: RoomTranscriptService, result: WorkflowResult) -> WorkflowResult:
    transcript = await service.read(result.room_id)
    logger.info(
        "join chat=%s messages=%d pending=%d transport=%s",
        result.room_id,
        len(transcript.messages),
        len(transcript.pending_requests),
        transcript.transport.role,
    )
    opened = prompts.join_summary(transcript, requested=result.requested_room or result.room_id)
    result.summary = "\n\n".join(part for part in (result.summary, opened) if part)
    result.transcript = transcript
    return result


async def _join(service: RoomTranscriptService, arguments: dict[str, Any]) -> WorkflowResult:
    parsed = JoinRoomInput.model_validate(arguments)
    chat_id = await service.resolve_room(parsed.chat_id)
    service.session.set_mode(chat_id, parsed.attention)
    return await _open(service, WorkflowResult(room_id=chat_id, requested_room=parsed.chat_id))


async def _create(service: RoomTranscriptService, arguments: dict[str, Any]) -> WorkflowResult:
    parsed = CreateAndOpenRoomInput.model_validate(arguments)
    chat_id = await service.create_room(parsed.task_id)
    service.session.set_mode(chat_id, parsed.attention)
    return await _open(service, WorkflowResult(chat_id, summary=f"Created Band room {chat_id}."))


async def _show(service: RoomTranscriptService, arguments: dict[str, Any]) -> WorkflowResult:
    parsed = ShowRoomInput.model_validate(arguments)
    transcript = await service.read(parsed.chat_id)
    return WorkflowResult(parsed.chat_id, prompts.show_summary(transcript), transcript)


async def _monitor(service: RoomTranscriptService, arguments: dict[str, Any]) -> WorkflowResult:
    parsed = WaitForRoomEventInput.model_validate(arguments)
    chat_id, session = parsed.chat_id, service.session
    quantum = parsed.timeout_seconds or service.tuning.band_room_event_timeout_s
    if parsed.attention is not None and parsed.caller is MonitorCaller.MODEL:
        session.set_mode(chat_id, parsed.attention)  # the user's choice, never the view's
    # The call proves its loop runs; a view instance takes the display over on its first call.
    current = session.view_is_current(chat_id, parsed.instance)
    if parsed.caller is MonitorCaller.MODEL:
        session.note_model_tick(chat_id, quantum=quantum)
        consumer = parsed.caller.value
    else:
        if current:
            session.note_view_tick(chat_id, quantum=quantum)
        consumer = f"{parsed.caller.value}:{parsed.instance or 'default'}"
    event = await service.wait_for_room_event(
        chat_id, since=parsed.since, timeout_seconds=quantum, cursor_consumer=consumer
    )
    event.superseded = not session.view_is_current(chat_id, parsed.instance)
    if session.claim_stale_report(chat_id, event.monitoring):
        logger.warning(
            "monitor loop stopped chat=%s idle=%.0fs; the room is unwatched",
            chat_id,
            event.monitoring.idle_seconds or 0,
        )
    (logger.info if event.messages else logger.debug)(
        "tick chat=%s event=%s messages=%d pending=%d",
        chat_id,
        event.event_received,
        len(event.messages),
        len(event.pending_requests),
    )
    summary = prompts.monitor_summary(
        event,
        elsewhere=service.unannounced_rooms(chat_id),
        view_missing=session.view_missing(chat_id),
    )
    return WorkflowResult(chat_id, summary, event if event.messages else event.tick())


ToolHandler = Callable[[RoomTranscriptService, dict[str, Any]], Awaitable[WorkflowResult]]


@dataclass(frozen=True)
class DesktopToolSpec:
    """One tool: its name, description, input model, workflow, and how the view sees it."""

    name: RoomTool
    description: str
    input_model: type[BaseModel]
    handler: ToolHandler
    visibility: tuple[str, ...] | None = None
    mounts_view: bool = False


TOOL_SPECS: tuple[DesktopToolSpec, ...] = (
    DesktopToolSpec(RoomTool.JOIN, prompts.JOIN_TOOL_DESCRIPTION, JoinRoomInput, _join, None, True),
    DesktopToolSpec(
        RoomTool.CREATE,
        prompts.CREATE_TOOL_DESCRIPTION,
        CreateAndOpenRoomInput,
        _create,
        None,
        True,
    ),
    DesktopToolSpec(RoomTool.SHOW, prompts.SHOW_TOOL_DESCRIPTION, ShowRoomInput, _show, None, True),
    DesktopToolSpec(
        RoomTool.MONITOR,
        prompts.MONITOR_TOOL_DESCRIPTION,
        WaitForRoomEventInput,
        _monitor,
        ("model", "app"),
    ),
)


def inline(node: Any, definitions: dict[str, Any]) -> Any:
    """A JSON schema node with every ``$ref`` replaced by its definition (the field's own
    keys win over the definition's)."""
    if isinstance(node, list):
        return [inline(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if ref is None:
        return {key: inline(value, definitions) for key, value in node.items()}
    target = inline(definitions[ref.rsplit("/", 1)[-1]], definitions)
    return target | {key: value for key, value in node.items() if key != "$ref"}


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    """The input schema as one document without ``$defs``/``$ref`` (Desktop misreads them)."""
    schema = model.model_json_schema()
    flat: dict[str, Any] = inline(schema, schema.pop("$defs", {}))
    flat.pop("title", None)
    return flat


def room_view_tools() -> list[Tool]:
    """The MCP tool list, with the view's ``ui`` metadata on the tools that mount it."""
    tools = []
    for spec in TOOL_SPECS:
        ui: dict[str, Any] = {"resourceUri": ROOM_VIEW_URI} if spec.mounts_view else {}
        if spec.visibility:
            ui["visibility"] = list(spec.visibility)
        meta: dict[str, Any] = {"ui": ui}
        if spec.mounts_view:
            meta["ui/resourceUri"] = ROOM_VIEW_URI
        tools.append(
            Tool(
                name=spec.name,
                description=spec.description,
                inputSchema=_schema(spec.input_model),
                _meta=meta,
            )
        )
    return tools


def _host_params(server: Server[Any, Any]) -> Any:
    try:
        return server.request_context.session.client_params
    except LookupError:  # called outside a request (a direct call in a test)
        return None


def create_server(service: RoomTranscriptService) -> Server[Any, Any]:
    """The stdio MCP server around ``service``."""
    server: Server[Any, Any] = Server("band-room-view", instructions=prompts.SERVER_INSTRUCTIONS)
    tools = room_view_tools()
    specs = {spec.name.value: spec for spec in TOOL_SPECS}

    @server.list_tools()  # type: ignore[untyped-decorator]
    async def list_tools() -> list[Tool]:
        return tools

    # The input models validate (leniently: Desktop sends numbers as strings); the framework's
    # strict JSON Schema pass would refuse them.
    @server.call_tool(validate_input=False)  # type: ignore[untyped-decorator]
    async def call_tool(name: str, arguments: dict[str, Any]) -> Any:
        service.capture_host(_host_params(server))
        spec = specs.get(name)
        if spec is None:
            raise ValueError(f"Unknown tool: {name}")
        try:
            if spec.mounts_view:
                await service.refresh_viewer()  # the briefing names the agent: keep it current
            result = await spec.handler(service, arguments)
        except ValidationError as error:
            logger.warning("rejected %s call: %s", name, error.error_count())
            raise ValueError(prompts.invalid_arguments(name, error)) from error
        if result.transcript is None:
            raise RuntimeError(f"{name} produced no room transcript.")
        if spec.mounts_view:  # the mount is the view's first tick
            service.session.note_view_tick(
                result.room_id, quantum=service.tuning.band_room_event_timeout_s
            )
        text = [TextContent(type="text", text=result.summary)]
        return text, result.transcript.model_dump(mode="json")

    @server.list_resources()  # type: ignore[untyped-decorator]
    async def list_resources() -> list[Resource]:
        return [
            Resource(
                uri=ROOM_VIEW_URI,
                name="Band room transcript",
                description=prompts.VIEW_RESOURCE_DESCRIPTION,
                mimeType=ROOM_VIEW_MIME_TYPE,
            )
        ]

    @server.read_resource()  # type: ignore[untyped-decorator]
    async def read_resource(uri: Any) -> list[ReadResourceContents]:
        if str(uri) != ROOM_VIEW_URI:
            raise ValueError(f"Unknown resource: {uri}")
        return [ReadResourceContents(content=room_view_html(), mime_type=ROOM_VIEW_MIME_TYPE)]

    return server


@asynccontextmanager
async def connected_agent_service(
    agent_key: str, rest_url: str, ws_url: str
) -> AsyncIterator[RoomTranscriptService]:
    """The service for the agent ``agent_key`` names, its relay running (online) meanwhile."""
    rest_url = rest_url.rstrip("/")
    tools = AgentTranscriptTools(AsyncRestClient(api_key=agent_key, base_url=rest_url))
    profile = await tools.get_agent_profile()
    agent_id = str(profile.get("id") or "")
    if not agent_id:
        raise ValueError("Band agent /me response did not include an agent ID.")
    relay = DesktopRoomEventRelay(
        agent_id=agent_id, agent_key=agent_key, rest_url=rest_url, ws_url=ws_url
    )
    try:
        await relay.start()
        yield RoomTranscriptService(
            tools,
            viewer=AgentIdentity.model_validate(profile),
            events=relay.events,
            transport=relay.status,
        )
    finally:
        await relay.stop()


async def run(settings: DesktopRoomViewSettings | None = None) -> None:
    """Serve the room view over this process's stdio (as Claude Desktop starts it)."""
    agent_key, rest_url, ws_url = (settings or DesktopRoomViewSettings()).resolve_connection()
    async with connected_agent_service(agent_key, rest_url, ws_url) as service:
        server = create_server(service)
        options = server.create_initialization_options(
            experimental_capabilities={UI_EXTENSION_ID: {"mimeTypes": [ROOM_VIEW_MIME_TYPE]}}
        )
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, options)


def entry_point() -> None:
    """``band-room-view``."""
    configure_logging()
    asyncio.run(run())
