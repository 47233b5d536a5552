"""The engine's registrations as FastMCP tools (the one place ``mcp``'s server API is used).

Each tool advertises its registration's input model as its schema and hands the call's raw
arguments to ``execute``, which validates them itself, so a refused call reads the same as
on every other Band tool surface. The result is an explicit ``CallToolResult``: the tool's
text (a room file's images as image blocks), or ``isError`` with the text the model reads.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from mcp import types
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.tools import Tool
from mcp.server.fastmcp.utilities.func_metadata import ArgModelBase, FuncMetadata
from pydantic import BaseModel, ConfigDict

from band.adapters._tool_events import as_text, image_blocks
from band.core.exceptions import BandToolError, RoomExecutionStoppedError
from band.runtime._schema import model_parameters

from .resolvers import CHAT_ID_FIELD_NAME, ROOM_PATH_PARAM, ToolCallFailed

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

logger = logging.getLogger("band.integrations.mcp")
CONTEXT_KWARG = "ctx"


class Registration(Protocol):
    """What a tool needs of ``engine.MCPToolRegistration`` (structural, so this module does
    not import the engine that imports it)."""

    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def input_model(self) -> type[BaseModel]: ...
    @property
    def execute(self) -> Callable[[dict[str, Any]], Awaitable[Any]]: ...
    @property
    def room_from_connection(self) -> bool: ...


class _RawArguments(ArgModelBase):  # type: ignore[misc]
    """Passes a call's arguments through untouched (``execute`` validates them)."""

    model_config = ConfigDict(extra="allow", arbitrary_types_allowed=True)

    def model_dump_one_level(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _result(text: str, *, error: bool) -> types.CallToolResult:
    images = None if error else image_blocks(text)
    content: list[types.ContentBlock] = (
        [types.ImageContent(type="image", mimeType=m, data=d) for m, d in images]
        if images
        else [types.TextContent(type="text", text=text)]
    )
    return types.CallToolResult(content=content, isError=error)


def _room_from_request(ctx: Context[Any, Any, Any]) -> str:
    """The ``room_id`` of the endpoint path this request arrived on (per request, never
    per session: a stdio or in-memory session has no path and is refused)."""
    try:
        request = ctx.request_context.request
    except ValueError:
        request = None
    room = getattr(request, "path_params", {}).get(ROOM_PATH_PARAM) if request else None
    if not room:
        raise ToolCallFailed("this tool takes its room from a room endpoint (/rooms/<id>/...)")
    return str(room)


def fastmcp_tool(registration: Registration) -> Tool:
    """``registration`` as a FastMCP tool whose schema is its input model's."""

    async def run(ctx: Context[Any, Any, Any], **arguments: Any) -> types.CallToolResult:
        try:
            if registration.room_from_connection:
                arguments[CHAT_ID_FIELD_NAME] = _room_from_request(ctx)
            value = await registration.execute(arguments)
        except RoomExecutionStoppedError:
            return _result("The room's turn was stopped.", error=True)
        except (ToolCallFailed, BandToolError) as exc:
            return _result(str(exc), error=True)
        except Exception as exc:
            logger.exception("MCP tool %s failed", registration.name)
            return _result(f"Error executing {registration.name}: {exc}", error=True)
        return _result(as_text(value), error=False)

    return Tool(
        fn=run,
        name=registration.name,
        description=registration.description,
        parameters=model_parameters(registration.input_model),
        fn_metadata=FuncMetadata(arg_model=_RawArguments),
        is_async=True,
        context_kwarg=CONTEXT_KWARG,
    )


def fastmcp_server(
    name: str,
    tools: Sequence[Registration],
    *,
    host: str,
    transport_security: TransportSecuritySettings | None,
    paths: tuple[str, str, str],
) -> FastMCP[Any]:
    """A fresh FastMCP server named ``name`` of ``tools`` (paths: SSE, SSE messages, HTTP)."""
    sse_path, message_path, http_path = paths
    return FastMCP(
        name=name,
        host=host,
        transport_security=transport_security,
        sse_path=sse_path,
        message_path=message_path,
        streamable_http_path=http_path,
        tools=[fastmcp_tool(registration) for registration in tools],
    )
