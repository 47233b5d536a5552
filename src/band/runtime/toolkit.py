"""``make_room_tools``: the room-bound ``AgentTools`` of one turn (Agent and OneShotInvoker)."""

from __future__ import annotations

from typing import Any

from band.core.protocols import AgentToolsProtocol
from band.core.turn import Turn
from band.platform.rest import BandRestClient

__all__ = ["make_room_tools"]


def make_room_tools(
    api: BandRestClient,
    room_id: str,
    *,
    participants: list[dict[str, Any]],
    agent_id: str,
    agent_name: str,
    adapter: Any,
    posts_missing_reply: bool = True,
) -> AgentToolsProtocol:
    """Fresh tools and a fresh ``Turn`` ledger for one turn in ``room_id``."""
    from band.runtime.tools import AgentTools

    tools: AgentToolsProtocol = AgentTools(
        room_id,
        api,
        participants,
        agent_id=agent_id,
        agent_name=agent_name,
        features=getattr(adapter, "features", None),
        turn=Turn(posts_missing_reply=posts_missing_reply),
    )
    return tools
