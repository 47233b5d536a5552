"""The ACP client of one room's agent: ``band.integrations.acp``'s collecting client, with
the room's permission decisions and the adapter's profile.

How it works: docs/internals/sdk.md, "ACP: one room's client".
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from band.adapters._coding.approvals import ApprovalRequest, Decision
from band.adapters._coding.band_tools import SERVER_NAME
from band.integrations.acp.collecting import ACPCollectingClient
from band.integrations.acp.permissions import (
    PermissionHandler,
    allow_permission,
    cancel_permission,
    option_id_of_kind,
    permission_option_ids,
    select_allow_option_id,
)
from band.integrations.acp.room_emitter import RoomTurnEmitter
from band.integrations.acp.types import ACPToolCall, ChunkType, CollectedChunk
from band.runtime.tools.names import ALL_TOOL_NAMES, canonical_tool_name

from ._types import ACPClientProfile, ACPPermissionRequest, ClientHost, PermissionResolver

if TYPE_CHECKING:
    from band.adapters._coding.base import Prompt
    from band.adapters._coding.events import Reporter

__all__ = [
    "ACPClientProfile",
    "ACPPermissionRequest",
    "PermissionResolver",
    "RoomClient",
    "TurnEmitter",
    "band_tool_name",
]

logger = logging.getLogger("band.adapters.acp")


def band_tool_name(name: str) -> str:
    """Band's name for a tool an agent reports (its MCP and title spellings undone)."""
    name = name.strip().removeprefix("Tool: ").removeprefix(f"{SERVER_NAME}/")
    return canonical_tool_name(name)


class TurnEmitter(RoomTurnEmitter):
    """``RoomTurnEmitter`` with the coding agents' rule for agent text: text followed by a
    tool call is commentary, posted as a thought when the call starts; only the text the
    turn ends with is held to its end (a thought then unless the turn replied)."""

    async def emit(self, chunk: CollectedChunk) -> None:
        if chunk.chunk_type == ChunkType.TOOL_CALL:
            await self.post_held_text()
        await super().emit(chunk)


def _band_permission(tool_call: Any) -> bool:
    """A permission request about one of Band's own tools (the ``band`` MCP server)."""
    raw = getattr(tool_call, "raw_input", None)
    if isinstance(raw, dict) and SERVER_NAME in (raw.get("server_name"), raw.get("server")):
        return True
    title = str(getattr(tool_call, "title", None) or "")
    if title.startswith(
        (f"{SERVER_NAME}/", f"Tool: {SERVER_NAME}/", f"{SERVER_NAME}-", "mcp__band__")
    ):
        return True
    return canonical_tool_name(title) in ALL_TOOL_NAMES  # Copilot titles it by the bare name


def _pick(options: list[Any], kinds: tuple[str, ...]) -> str | None:
    """The first offered option of the first wanted kind; None when none is offered."""
    found = (option_id_of_kind(options, kind) for kind in kinds)
    return next((option_id for option_id in found if option_id is not None), None)


class RoomClient(ACPCollectingClient):
    """The collecting client of one room's agent; ``prompt`` is the running turn."""

    def __init__(
        self,
        adapter: ClientHost,
        room_id: str,
        canonicalize_tool_name: Callable[[str], str] = band_tool_name,
    ) -> None:
        super().__init__(profile=adapter.profile, canonicalize_tool_name=canonicalize_tool_name)  # type: ignore[arg-type]  # our profiles' notifications return None, which the base reads as no chunks
        self.adapter = adapter
        self.room_id = room_id
        self.prompt: Prompt | None = None

    @property
    def reporter(self) -> Reporter | None:
        return self.prompt.reporter if self.prompt is not None else None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        in_room = getattr(self.adapter.profile, "room_ext_method", None)
        if in_room is not None:
            return dict(await in_room(self, method, params))
        return await super().ext_method(method, params)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        in_room = getattr(self.adapter.profile, "room_ext_notification", None)
        if in_room is not None:
            await in_room(self, method, params)
        else:
            await super().ext_notification(method, params)

    def permission_handler(self, emitter: RoomTurnEmitter) -> PermissionHandler:
        """The turn's permission handler; a cancelled request is narrated by ``emitter``."""

        async def handle(
            *, options: Any, session_id: str, tool_call: Any, narrate_permission: Any, **_: Any
        ) -> dict[str, object]:
            offered = list(options or [])
            option_id = await self.choose(session_id, tool_call, offered)
            if option_id is not None:
                return allow_permission(option_id)
            call = ACPToolCall.from_acp(tool_call, canonicalize=self._canonicalize_tool_name)
            await narrate_permission(
                emitter.open_permission(call=call, session_id=session_id, outcome="cancelled")
            )
            return cancel_permission()

        return handle

    async def choose(self, session_id: str, tool_call: Any, options: list[Any]) -> str | None:
        """The offered option to answer with (None: cancel), as the module docstring says."""
        resolver = self.adapter.resolve_permission
        if resolver is not None:
            call = ACPToolCall.from_acp(tool_call, canonicalize=self._canonicalize_tool_name)
            offered = tuple(o for o in options if isinstance(o, Mapping) or hasattr(o, "option_id"))
            picked = await resolver(ACPPermissionRequest(self.room_id, session_id, call, offered))
            if picked is not None and picked not in permission_option_ids(offered):
                raise ValueError(f'ACP permission resolver selected unavailable option "{picked}".')
            return picked
        if _band_permission(tool_call):  # the room's own tools need no approval of the room
            return select_allow_option_id(options)
        prompt = self.prompt
        if prompt is None:
            return None
        # The agent's title is written for people; the raw input only stands in for it.
        raw = getattr(tool_call, "raw_input", None)
        title = getattr(tool_call, "title", None) or (
            json.dumps(raw, default=str)[:500] if raw else "tool call"
        )
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
