"""How an MCP tool call reaches live room tools: the resolver seam and the one dispatch path.

A registration validates a call and hands it, with its room, to a ``ToolsResolver``; the
embedded resolver looks up the tools the adapter holds for that room and dispatches the
call on them. An error the model can act on is raised as ``ToolCallFailed`` (the MCP
result's ``isError``), with the room's mentionable handles appended when a message post
failed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, cast

from band.adapters._tool_events import run_band_tool
from band.core.exceptions import BandToolError, MessagePostError, MessagePostKind
from band.core.protocols import AgentToolsProtocol
from band.core.turn import Turn
from band.runtime.tools import BandTool
from band.runtime.tools.agent import append_available_mention_handles
from band.runtime.tools.definitions import ToolDefinition

__all__ = [
    "CHAT_ID_FIELD_NAME",
    "ROOM_PATH_PARAM",
    "EmbeddedResolver",
    "RoomToolResolver",
    "ToolCallFailed",
    "ToolsResolver",
    "dispatch_tool",
    "enrich_send_message_error",
    "resolve_tool_method",
    "room_turn",
]

CHAT_ID_FIELD_NAME = "chat_id"
ROOM_PATH_PARAM = "room_id"
RoomToolResolver = Callable[[str], AgentToolsProtocol | None]


class ToolCallFailed(ValueError):
    """A tool answered with an error the model should read (the MCP result's ``isError``)."""


class ToolsResolver(Protocol):
    """Runs a validated call of a built-in tool on the tools of its room (``chat_id``)."""

    async def invoke(
        self,
        definition: ToolDefinition,
        chat_id: str | None,
        arguments: dict[str, Any],
    ) -> Any: ...


class EmbeddedResolver:
    """The resolver of an adapter's own MCP server: ``get_tools(room)`` gives the room's tools.

    A room the adapter holds no tools for (not joined, or no message in progress there) is
    refused with ``ToolCallFailed`` and nothing runs.
    """

    def __init__(self, get_tools: Callable[[str], Any]) -> None:
        self._get_tools = get_tools

    async def invoke(
        self,
        definition: ToolDefinition,
        chat_id: str | None,
        arguments: dict[str, Any],
    ) -> Any:
        if chat_id is None:
            raise ToolCallFailed(f"{definition.name}: the call names no room (chat_id)")
        tools = self._get_tools(chat_id)
        if tools is None:
            raise ToolCallFailed(
                f"No Band tools for room {chat_id}: the agent is not in that room, or it has "
                "no message in progress there"
            )
        return await dispatch_tool(tools, definition, arguments)


def resolve_tool_method(tools: Any, definition: ToolDefinition) -> Callable[..., Any]:
    """``tools``' method for ``definition``; RuntimeError naming both when it has none."""
    method: Any = getattr(tools, definition.method_name, None)
    if not callable(method):
        raise RuntimeError(
            f"{definition.name}: {type(tools).__name__} has no method '{definition.method_name}'"
        )
    return cast("Callable[..., Any]", method)


async def dispatch_tool(
    tools: Any,
    definition: ToolDefinition,
    arguments: dict[str, Any],
) -> Any:
    """Run ``definition`` on ``tools`` and return its output text.

    The call goes through the tools' own executor, so it is validated, recorded and traced
    like any other tool call; a failure is raised as ``ToolCallFailed`` carrying the text
    the model reads (see :func:`enrich_send_message_error`). A stopped room raises.
    """
    resolve_tool_method(tools, definition)
    output, is_error = await run_band_tool(tools, definition.name, arguments)
    if is_error:
        raise enrich_send_message_error(definition, tools, ToolCallFailed(output))
    return output


def enrich_send_message_error(
    definition: ToolDefinition,
    tools: Any,
    error: ValueError | BandToolError,
) -> ValueError | BandToolError:
    """``error`` of a failed ``band_send_message`` with the room's mentionable handles added.

    Other tools' errors, and a post whose recipient is unconfirmed (the message may have
    gone out), come back unchanged. ``tools`` needs ``participants`` (and ``agent_id``,
    left out of the list, if it has one).
    """
    if definition.name != BandTool.SEND_MESSAGE:
        return error
    if isinstance(error, MessagePostError) and error.kind is MessagePostKind.UNCONFIRMED_RECIPIENT:
        return error
    participants = list(getattr(tools, "participants", None) or [])
    text = append_available_mention_handles(
        str(error), participants, getattr(tools, "agent_id", None)
    )
    if isinstance(error, MessagePostError):
        return MessagePostError(text, kind=error.kind, detail=error.detail)
    return type(error)(text)


def room_turn(get_tools: RoomToolResolver | None, chat_id: str | None) -> Turn | None:
    """The turn in progress in room ``chat_id``, if the call is room-bound and one is."""
    if get_tools is None or chat_id is None:
        return None
    tools = get_tools(chat_id)
    return tools.turn if tools is not None else None
