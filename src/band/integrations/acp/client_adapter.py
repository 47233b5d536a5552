"""``ACPClientAdapter`` at band-sdk's module path: Band rooms on any ACP agent.

The adapter itself is ``band.adapters.acp`` (one agent process per room, supervised like
every coding agent, running on this package's ``ACPRuntime``, ``ACPCollectingClient`` and
``RoomTurnEmitter``); its records are re-exported here under band-sdk's names.
"""

from __future__ import annotations

from band.adapters.acp import ACPClientAdapter, ACPClientAdapterConfig
from band.adapters.acp._types import (
    NEW_MESSAGE_MARKER_PREFIX,
    ACPPermissionRequest,
    ACPTurn,
    ACPTurnTimeoutError,
    PermissionResolver,
    SessionCloseReason,
    SessionMcpServers,
    new_message_marker,
)

__all__ = [
    "NEW_MESSAGE_MARKER_PREFIX",
    "ACPClientAdapter",
    "ACPClientAdapterConfig",
    "ACPPermissionRequest",
    "ACPTurn",
    "ACPTurnTimeoutError",
    "PermissionResolver",
    "SessionCloseReason",
    "SessionMcpServers",
    "new_message_marker",
]
