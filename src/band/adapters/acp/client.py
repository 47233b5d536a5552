"""The ACP client side of one room: session updates become room events, permission
requests are resolved by a callback or relayed to the room.

Updates map in stream order: thought chunks to ``thought`` events, tool calls to
``tool_call`` / ``tool_result`` pairs (MCP-prefixed names mapped back to Band's), plans to
``task`` events; assistant text is held (see :class:`Reporter`); config option updates
refresh the session's settings. An agent's ACP extension methods and notifications
(``_name``) go to the adapter's :class:`ACPClientProfile`, if it has one.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from band.adapters._coding.approvals import ApprovalRequest, Decision
from band.integrations.acp.permissions import (
    allow_permission,
    cancel_permission,
    option_id_of_kind,
    select_allow_option_id,
)
from band.integrations.acp.types import ToolStatus, mcp_invocation
from band.runtime.tools.names import ALL_TOOL_NAMES, canonical_tool_name

from ._types import ACPClientProfile, ACPPermissionRequest, ClientHost, PermissionResolver
from .band_mcp import SERVER_NAME

if TYPE_CHECKING:
    from band.adapters._coding.base import Prompt
    from band.adapters._coding.events import Reporter

__all__ = ["ACPClientProfile", "ACPPermissionRequest", "PermissionResolver", "RoomClient"]

logger = logging.getLogger("band.adapters.acp")
FINISHED = (ToolStatus.COMPLETED, ToolStatus.FAILED)


def _text(content: Any) -> str:
    text = getattr(content, "text", None)
    return text if isinstance(text, str) else ""


def _mcp_call(raw: Any) -> tuple[str, str, dict[str, Any]] | None:
    """``(server, tool, arguments)`` of an MCP call an agent reports in its raw input."""
    return mcp_invocation(raw)


def _tool_name(title: str | None, fallback: str, raw: Any = None) -> str:
    """The tool's name, Band's own spelling for Band tools (``mcp__band__x``,
    ``Tool: band/x`` and an MCP call on the ``band`` server all become ``x``)."""
    call = _mcp_call(raw)
    if call is not None and call[0] == SERVER_NAME:
        return call[1]
    name = (title or fallback).strip().removeprefix("Tool: ")
    name = name.removeprefix(f"{SERVER_NAME}/")
    return canonical_tool_name(name)


def _args(raw: Any) -> dict[str, Any]:
    call = _mcp_call(raw)
    if call is not None and call[0] == SERVER_NAME:
        return call[2]
    return raw if isinstance(raw, dict) else {}


def _band_permission(tool_call: Any) -> bool:
    """A permission request about one of Band's own tools (the ``band`` MCP server)."""
    raw = tool_call.raw_input
    if isinstance(raw, dict) and SERVER_NAME in (raw.get("server_name"), raw.get("server")):
        return True
    title = str(tool_call.title or "")
    if title.startswith(
        (f"{SERVER_NAME}/", f"Tool: {SERVER_NAME}/", f"{SERVER_NAME}-", "mcp__band__")
    ):
        return True
    return canonical_tool_name(title) in ALL_TOOL_NAMES  # Copilot titles it by the bare name


def _output(update: Any) -> Any:
    if update.raw_output is not None:
        return update.raw_output
    parts = [_text(getattr(c, "content", None)) for c in update.content or []]
    return "\n".join(p for p in parts if p) or (update.status or "")


class RoomClient:
    """``acp.Client`` for one room's agent process; ``prompt`` is the running turn."""

    def __init__(self, adapter: ClientHost, room_id: str) -> None:
        self.adapter = adapter
        self.room_id = room_id
        self.prompt: Prompt | None = None
        self._names: dict[str, str] = {}
        self._thought: list[str] = []

    @property
    def reporter(self) -> Reporter | None:
        return self.prompt.reporter if self.prompt is not None else None

    def on_connect(self, conn: Any) -> None:
        """Part of ``acp.Client``; the connection is kept by the adapter."""

    async def flush_thought(self) -> None:
        if self._thought and self.reporter is not None:
            text, self._thought = "".join(self._thought), []
            await self.reporter.thought(text)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        profile = self.adapter.profile
        if profile is None:
            from acp import RequestError

            raise RequestError.method_not_found(method)
        in_room = getattr(profile, "room_ext_method", None)  # a profile that needs the room
        if in_room is not None:
            return dict(await in_room(self, method, params))
        return await profile.ext_method(method, params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        profile = self.adapter.profile
        in_room = getattr(profile, "room_ext_notification", None)
        if in_room is not None:
            await in_room(self, method, params)
        elif profile is not None:
            await profile.ext_notification(method, params)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        kind = getattr(update, "session_update", "")
        if kind == "config_option_update":
            proc = self.adapter.processes.current(self.room_id)
            if proc is not None and proc.session_id == session_id:
                proc.config_options = list(update.config_options)
            return
        reporter = self.reporter
        if reporter is None:
            return
        if kind == "agent_thought_chunk":
            self._thought.append(_text(update.content))
            return
        await self.flush_thought()
        if kind == "agent_message_chunk":
            reporter.hold_text(_text(update.content), delta=True)
        elif kind == "tool_call":
            name = _tool_name(update.title, update.tool_call_id, update.raw_input)
            self._names[update.tool_call_id] = name
            await reporter.tool_call(name, _args(update.raw_input), update.tool_call_id)
            if update.status in FINISHED:
                await self._result(update)
        elif kind == "tool_call_update" and update.status in FINISHED:
            await self._result(update)
        elif kind == "plan":
            entries = [{"content": e.content, "status": e.status} for e in update.entries]
            lines = "\n".join(f"- [{e['status']}] {e['content']}" for e in entries)
            await reporter.task(f"Plan\n{lines}", {"acp_plan": entries})

    async def _result(self, update: Any) -> None:
        assert self.reporter is not None  # nosec B101 # narrows for mypy: updates arrive only during a prompt
        name = self._names.get(update.tool_call_id) or _tool_name(update.title, "tool")
        output = _output(update)
        text = output if isinstance(output, str) else json.dumps(output, default=str)
        await self.reporter.tool_result(
            name, text, update.tool_call_id, is_error=update.status == ToolStatus.FAILED
        )

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> Any:
        from acp.schema import RequestPermissionResponse

        option_id = await self._choose(session_id, tool_call, options)
        if option_id is None:
            if self.reporter is not None:
                call_id = f"{tool_call.tool_call_id}-cancelled"
                name = _tool_name(tool_call.title, "tool")
                await self.reporter.tool_call(name, {}, call_id)
                await self.reporter.tool_result(
                    name, "Permission cancelled", call_id, is_error=True
                )
            return RequestPermissionResponse.model_validate(cancel_permission())
        return RequestPermissionResponse.model_validate(allow_permission(option_id))

    async def _choose(self, session_id: str, tool_call: Any, options: list[Any]) -> str | None:
        resolver = self.adapter.resolve_permission
        if resolver is not None:
            return await resolver(
                ACPPermissionRequest(self.room_id, session_id, tool_call, options)
            )
        if _band_permission(tool_call):  # the room's own tools need no approval of the room
            return select_allow_option_id(options)
        prompt = self.prompt
        if prompt is None:
            return None
        # The agent's title is written for people; the raw input only stands in for it.
        raw = tool_call.raw_input
        title = tool_call.title or (json.dumps(raw, default=str)[:500] if raw else "tool call")
        command = raw.get("command") if isinstance(raw, dict) else None
        if isinstance(command, str) and command not in title:  # Copilot titles by description
            title = f"{title}: {command}"
        request = ApprovalRequest("permission", title, f"tool:{title}", None)
        decision = await self.adapter.relay.request(
            self.room_id, prompt.reporter, request, on_wait=prompt.turn.release
        )
        kinds = (
            ("allow_always", "allow_once")
            if decision is Decision.ACCEPT_SESSION
            else ("allow_once", "allow_always")
            if decision is Decision.ACCEPT
            else ("reject_once", "reject_always")
        )
        return _pick(options, kinds)


def _pick(options: list[Any], kinds: tuple[str, ...]) -> str | None:
    """The first offered option of the first wanted kind; None when none is offered."""
    found = (option_id_of_kind(options, kind) for kind in kinds)
    return next((option_id for option_id in found if option_id is not None), None)
