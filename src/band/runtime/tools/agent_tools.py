"""``AgentTools``: the room tools the runtime hands to an adapter, over the REST client."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from band.core.turn import Turn
from band.core.types import AdapterFeatures
from band.platform.rest import BandRestClient
from band.runtime.custom_tools import CustomToolDef
from band_protocol import AgentFailure

from .room_tools import RoomTools

if TYPE_CHECKING:
    from band.runtime.room_execution import ExecutionContext

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
        self._ctx: ExecutionContext | None = None

    @classmethod
    def from_context(cls, ctx: ExecutionContext) -> AgentTools:
        """Tools for the turn ``ctx`` is running (inside an ``AgentRuntime`` handler).

        A failure reported with ``send_failure`` tells the room loop, so it posts no generic
        notice when the handler then raises.
        """
        tools = cls(
            ctx.link.api,
            ctx.room_id,
            participants=ctx.participants,
            agent_id=ctx.agent_id,
            hub_room=ctx.hub_room_id is not None and ctx.room_id == ctx.hub_room_id,
            turn=Turn(posts_missing_reply=ctx.config.report_turn_failures_to_room),
        )
        tools._ctx = ctx
        return tools

    async def send_failure(self, failure: AgentFailure) -> Any:
        created = await super().send_failure(failure)
        if self._ctx is not None and self.turn.failure_reported:
            self._ctx.note_turn_failure_reported()
        return created
