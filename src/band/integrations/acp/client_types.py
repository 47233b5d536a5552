"""The records of the outbound ACP client: a room's session and residency, the resume state
its history carries, and the ``session_busy`` refusal.

An agent refuses a prompt for a session that is still running one with JSON-RPC code
``SESSION_BUSY_CODE`` and ``data.reason == "session_busy"``.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from band.converters.acp_client import ACPClientSessionState
from band.core.protocols import AgentToolsProtocol
from band.core.retention import RetainedRoom
from band.integrations.acp._sdk import require_acp
from band.integrations.acp.client_runtime import ACPRuntime
from band.integrations.acp.collecting import ACPCollectingClient

_acp = require_acp()

__all__ = [
    "SESSION_BUSY_CODE",
    "SESSION_BUSY_REASON",
    "ACPClientSessionState",
    "ACPRoom",
    "BandACPClient",
    "RoomSession",
    "is_session_busy",
    "session_busy_error",
]

SESSION_BUSY_CODE = -32003
SESSION_BUSY_REASON = "session_busy"


def session_busy_error(message: str = "Session is busy") -> Any:
    """The ``RequestError`` an agent refuses a concurrent prompt with."""
    return _acp.RequestError(SESSION_BUSY_CODE, message, {"reason": SESSION_BUSY_REASON})


def is_session_busy(error: Any) -> bool:
    """``error`` is that refusal (code and reason both)."""
    data = getattr(error, "data", None)
    return (
        getattr(error, "code", None) == SESSION_BUSY_CODE
        and isinstance(data, dict)
        and data.get("reason") == SESSION_BUSY_REASON
    )


@dataclass
class RoomSession:
    """A room's ACP session and the Band MCP URL it was opened with (None: none).

    ``bootstrap_pending`` / ``replay_pending``: the session has not yet had its system
    context / the room's replayed history. ``live``: loaded on the room's current process
    (the id outlives the process until the room is disposed).
    """

    session_id: str
    band_url: str | None
    bootstrap_pending: bool = True
    replay_pending: bool = True
    live: bool = True


@dataclass(eq=False)
class ACPRoom:
    """One room's residency: its ``RetainedRoom`` (set after construction), the process
    (``runtime``) until its close is confirmed, the session across releases, the turn's
    tools, the lock that serialises its prompts, and closes of retired sessions."""

    room_id: str
    workspace: str
    retained: RetainedRoom = field(init=False)
    runtime: ACPRuntime | None = None
    session: RoomSession | None = None
    tools: AgentToolsProtocol | None = None
    reservation: asyncio.Lock = field(default_factory=asyncio.Lock)
    session_closes: set[asyncio.Task[None]] = field(default_factory=set)

    @property
    def generation(self) -> int:
        """The residency the current process belongs to."""
        return self.retained.generation

    @property
    def live_record(self) -> RoomSession | None:
        """The session, while it is loaded on a current process."""
        session = self.session
        if session is None or not session.live or self.runtime is None:
            return None
        return session

    @property
    def live_session(self) -> tuple[str, ACPRuntime] | None:
        """``(session id, runtime)`` of the live session, if there is one."""
        session, runtime = self.live_record, self.runtime
        return None if session is None or runtime is None else (session.session_id, runtime)


class BandACPClient(ACPCollectingClient):
    """The collecting client under the name band-sdk's tests and helpers construct."""
