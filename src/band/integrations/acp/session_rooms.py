"""The ACP server's editor sessions as Band rooms: which room each session is and what the
editor said about it (its mode, folder and MCP servers, which open each prompt), the room a new
session gets with the configured peers in it, and the bindings read back from the rooms'
history after a restart."""

from __future__ import annotations

import contextlib
from pathlib import PurePath
from typing import Any

from band.client.rest import AsyncRestClient
from band.integrations._rooms import all_peers
from band.protocol.requests import ChatRoomRequest, ParticipantRequest

from .types import ACPSessionState


class SessionRooms:
    """Editor sessions and their rooms, both ways, with each session's context."""

    def __init__(self) -> None:
        self.to_room: dict[str, str] = {}
        self.to_session: dict[str, str] = {}
        self.modes: dict[str, str] = {}
        self.cwd: dict[str, str] = {}
        self.mcp: dict[str, list[dict[str, Any]]] = {}

    def bind(self, session_id: str, room_id: str) -> None:
        self.to_room[session_id] = room_id
        self.to_session[room_id] = session_id

    def forget(self, session_id: str) -> None:
        """A session's room and context (its room's side goes with the room)."""
        self.to_room.pop(session_id, None)
        self.modes.pop(session_id, None)
        self.cwd.pop(session_id, None)
        self.mcp.pop(session_id, None)

    def update_context(
        self, session_id: str, *, cwd: str | None = None, mcp_servers: list[Any] | None = None
    ) -> None:
        if cwd:
            self.cwd[session_id] = cwd
        if mcp_servers is not None:
            self.mcp[session_id] = _json_servers(mcp_servers)

    def rehydrate(self, history: ACPSessionState) -> None:
        """Bindings and context read from a room's history; what is known already stays."""
        for session_id, room_id in history.session_to_room.items():
            if session_id not in self.to_room:
                self.bind(session_id, room_id)
            with contextlib.suppress(KeyError):
                self.cwd.setdefault(session_id, history.session_cwd[session_id])
            if session_id in history.session_mcp_servers:
                self.mcp.setdefault(session_id, history.session_mcp_servers[session_id])

    def with_context(self, session_id: str, text: str) -> str:
        """The editor's folder and MCP servers, for peers that work in it."""
        cwd, servers = self.cwd.get(session_id), self.mcp.get(session_id)
        if not cwd and not servers:
            return text
        lines = ["[ACP Session Context]", f"Editor cwd: {cwd or '.'}"]
        for server in servers or []:
            where = server.get("url") or server.get("command") or ""
            lines.append(f"Editor MCP server: {server.get('name', 'unnamed')} {where}".rstrip())
        return "\n".join([*lines, "", text])


async def open_room(rest: AsyncRestClient, cwd: str, peers: tuple[str, ...]) -> str:
    """A new room for a session opened in ``cwd``, with ``peers`` in it; its id."""
    title = f"Editor: {PurePath(cwd).name or cwd}"
    created = await rest.agent_api_chats.create_agent_chat(chat=ChatRoomRequest(title=title))
    room_id = str(created.data.id)
    for peer in peers:
        participant = ParticipantRequest(participant_id=await _peer_id(rest, peer), role="member")
        await rest.agent_api_participants.add_agent_chat_participant(
            room_id, participant=participant
        )
    return room_id


async def _peer_id(rest: AsyncRestClient, peer: str) -> str:
    """A configured peer's id (given as its id, handle or name)."""
    for candidate in await all_peers(rest):
        if peer in (candidate.id, candidate.handle, candidate.name):
            return str(candidate.id)
    raise ValueError(f"No Band peer named {peer!r} (a handle, name or id)")


def _json_servers(servers: list[Any]) -> list[dict[str, Any]]:
    """Editor MCP server configs as plain JSON objects (for the history event)."""
    plain: list[dict[str, Any]] = []
    for server in servers:
        value = server.model_dump(mode="json") if hasattr(server, "model_dump") else server
        if isinstance(value, dict):
            plain.append({str(k): v for k, v in value.items()})
    return plain
