"""The history converter of ``OpencodeAdapter``: the room's OpenCode session and its text.

The session comes from the adapter's latest ``task`` event carrying ``opencode_session_id``
(one that sets it to null, posted when a session is archived, means none), with the MCP
server name, room and creation time recorded beside it; the room's text messages come as
``[Name]: text`` lines to replay into a new session when the old one cannot be resumed.
"""

from __future__ import annotations

from typing import Any

from band.adapters._coding.history import CodingHistoryConverter
from band.converters.helpers import optional_str, parse_iso_datetime
from band.core.protocols import HistoryConverter
from band.integrations.opencode.types import OpencodeSessionState

__all__ = ["SESSION_ID_METADATA_KEY", "OpencodeHistoryConverter", "OpencodeSessionState"]

SESSION_ID_METADATA_KEY = "opencode_session_id"


class OpencodeHistoryConverter(HistoryConverter[OpencodeSessionState]):
    """Room history → :class:`OpencodeSessionState`."""

    def set_agent_name(self, name: str) -> None:
        """Nothing to do: every text message is replayed, the agent's own included."""

    def convert(self, raw: list[dict[str, Any]]) -> OpencodeSessionState:
        found = CodingHistoryConverter(SESSION_ID_METADATA_KEY).convert(raw)
        meta = found.session_metadata
        return OpencodeSessionState(
            session_id=found.session_id,
            mcp_server_name=optional_str(meta.get("opencode_mcp_server_name")),
            room_id=optional_str(meta.get("opencode_room_id")),
            created_at=parse_iso_datetime(meta.get("opencode_created_at")),
            replay_messages=list(found.transcript),
        )
