"""``AgentTools``: the room tools the runtime hands to an adapter, over the REST client."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from band.core.turn import Turn
from band.core.types import AdapterFeatures
from band.platform.rest import BandRestClient
from band.runtime.custom_tools import CustomToolDef

from .room_tools import RoomTools

__all__ = ["AgentTools"]


class AgentTools(RoomTools):
    """Platform tools bound to one room for one turn (a fresh instance, and ``Turn``, per turn).

    ``participants`` is the room's cached roster (dicts with id, name, type, handle,
    description); mentions resolve against it.
    """

    def __init__(
        self,
        rest: BandRestClient,
        room_id: str,
        *,
        participants: Iterable[Mapping[str, Any]] = (),
        agent_id: str = "",
        agent_name: str = "",
        features: AdapterFeatures | None = None,
        custom_tools: Sequence[CustomToolDef] = (),
        hub_room: bool = False,
        turn: Turn | None = None,
        posts_missing_reply: bool = True,
    ) -> None:
        super().__init__(
            rest,
            room_id,
            participants=participants,
            agent_id=agent_id,
            agent_name=agent_name,
            features=features,
            custom_tools=custom_tools,
            hub_room=hub_room,
            turn=turn,
            posts_missing_reply=posts_missing_reply,
        )
        self.rest = rest
