"""``ACPServerHistoryConverter``: the editor sessions a room's history maps to it."""

from __future__ import annotations

from typing import Any

from band.core.protocols import HistoryConverter
from band.integrations.acp.types import ACPSessionState

__all__ = ["ACPServerHistoryConverter"]


class ACPServerHistoryConverter(HistoryConverter[ACPSessionState]):
    """Reads ``acp_session_id`` / ``acp_room_id`` / ``acp_cwd`` / ``acp_mcp_servers`` from
    the ACP server's ``task`` events (the latest per session wins)."""

    def convert(self, raw: list[dict[str, Any]]) -> ACPSessionState:
        state = ACPSessionState()
        for item in raw:
            metadata = item.get("metadata") or {}
            session_id = metadata.get("acp_session_id") if isinstance(metadata, dict) else None
            if not isinstance(session_id, str) or not session_id:
                continue
            room_id = metadata.get("acp_room_id") or item.get("room_id")
            if room_id:
                state.session_to_room[session_id] = str(room_id)
            cwd = metadata.get("acp_cwd")
            if isinstance(cwd, str) and cwd:
                state.session_cwd[session_id] = cwd
            servers = metadata.get("acp_mcp_servers")
            if isinstance(servers, list):
                state.session_mcp_servers[session_id] = [s for s in servers if isinstance(s, dict)]
        return state
