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


def rest_client(rest: Any) -> BandRestClient:
    """Our REST client, also from the namespaced ``AsyncRestClient`` band-sdk code passes."""
    if isinstance(rest, BandRestClient):
        return rest
    http = getattr(rest, "_http", None)
    if http is None:
        raise TypeError(f"AgentTools needs a REST client, not {type(rest).__name__}")
    return BandRestClient.over(http)


class AgentTools(RoomTools):
    """Platform tools bound to one room for one turn (a fresh instance, and ``Turn``, per turn).

    ``AgentTools(room_id, rest, participants)`` as in band-sdk; ``rest`` is our
    ``BandRestClient`` or the namespaced ``AsyncRestClient``. ``participants`` is the room's
    cached roster (dicts with id, name, type, handle, description); mentions resolve against
    it. The earlier ``AgentTools(rest, room_id, ...)`` order still works (a str first is the
    room). ``hub_room_id`` equal to ``room_id`` marks the contacts hub room.
    """

    def __init__(
        self,
        room_id: str,
        rest: Any,
        participants: Iterable[Mapping[str, Any]] | None = None,
        *,
        hub_room_id: str | None = None,
        agent_id: str | None = None,
        agent_name: str = "",
        features: AdapterFeatures | None = None,
        custom_tools: Sequence[CustomToolDef] = (),
        hub_room: bool = False,
        turn: Turn | None = None,
        posts_missing_reply: bool = True,
    ) -> None:
        if not isinstance(room_id, str) and isinstance(rest, str):
            room_id, rest = rest, room_id
        rest = rest_client(rest)
        super().__init__(
            rest,
            room_id,
            participants=participants or (),
            agent_id=agent_id or "",
            agent_name=agent_name,
            features=features,
            custom_tools=custom_tools,
            hub_room=hub_room or (hub_room_id is not None and hub_room_id == room_id),
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
            ctx.room_id,
            ctx.link.api,
            ctx.participants,
            agent_id=ctx.agent_id,
            hub_room_id=ctx.hub_room_id,
            turn=Turn(posts_missing_reply=ctx.config.report_turn_failures_to_room),
        )
        tools._ctx = ctx
        return tools

    async def send_failure(self, failure: AgentFailure) -> Any:
        created = await super().send_failure(failure)
        if self._ctx is not None and self.turn.failure_reported:
            self._ctx.note_turn_failure_reported()
        return created
