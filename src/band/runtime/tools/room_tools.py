"""``RoomTools``: the platform tools bound to one room for one turn.

Every tool method records its turn effect on ``self.turn`` when it succeeds, so a direct
call, a dispatched ``execute_tool_call`` and ``deliver_reply`` all count the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from band.core._text import has_visible_text
from band.core.exceptions import RoomExecutionStoppedError
from band.core.protocols import to_failure_event
from band.core.turn import Turn
from band.core.types import AdapterFeatures
from band.platform.errors import BandRestError
from band.platform.posting import classified_post_error, event_content, unconfirmed_recipients
from band.runtime.custom_tools import (
    CustomToolDef,
    custom_tool_names,
    reject_conflicting_tool_names,
)
from band_protocol import AgentFailure, TurnEffect

from ._social_tools import SocialTools
from ._workspace_tools import WorkspaceTools
from .backend import ToolBackend
from .dispatch import ToolDispatch
from .roster import Roster

__all__ = ["Mentions", "Outgoing", "RoomTools"]

logger = logging.getLogger("band.runtime.tools.agent")
Mentions = list[str] | list[dict[str, str]] | None


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One message on its way out: its text, the resolved wire mentions, the mentions the
    caller passed, and the files shown with it."""

    content: str
    wire: list[dict[str, str]]
    requested: Mentions
    attachment_ids: list[str] | None = None


class RoomTools(ToolDispatch, SocialTools, WorkspaceTools):
    """Room-bound tools over the REST client (or ``FakePlatform``, the same client in memory)."""

    strict_mentions = True

    def __init__(
        self,
        backend: ToolBackend,
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
        reject_conflicting_tool_names(custom_tool_names(custom_tools))
        self.backend = backend
        self.room_id = room_id
        self.agent_name = agent_name
        self.features = features or AdapterFeatures()
        self.custom_tools = list(custom_tools)
        self.is_hub_room = hub_room
        self.roster = Roster(participants, agent_id=agent_id)
        self.turn = turn or Turn(posts_missing_reply=posts_missing_reply)

    @property
    def agent_id(self) -> str:
        return self.roster.agent_id

    @property
    def participants(self) -> list[dict[str, Any]]:
        """A copy of the cached roster."""
        return self.roster.members

    # messages and events

    async def _post(
        self,
        content: str,
        mentions: Mentions,
        *,
        reply: bool,
        attachment_ids: list[str] | None = None,
    ) -> Any:
        if not has_visible_text(content):
            return None
        wire = self.roster.resolve(mentions, strict=self.strict_mentions)
        try:
            sent = await self._deliver(Outgoing(content, wire, mentions, attachment_ids))
        except BandRestError as exc:
            raise classified_post_error(exc, self.room_id) from exc
        if reply:
            self.turn.record(TurnEffect.REPLY)
        problem = unconfirmed_recipients(sent)
        if problem is not None:
            raise problem
        return sent

    async def _deliver(self, out: Outgoing) -> dict[str, Any]:
        """Post one message (a seam for recorders)."""
        if out.attachment_ids:
            return await self.backend.post_message(
                self.room_id, out.content, out.wire, out.attachment_ids
            )
        return await self.backend.post_message(self.room_id, out.content, out.wire)

    async def send_message(
        self, content: str, mentions: Mentions = None, *, attachment_ids: list[str] | None = None
    ) -> Any:
        """Post a message mentioning at least one participant; this answers the turn.

        ``attachment_ids`` shows files already uploaded to the room with it.
        """
        return await self._post(content, mentions, reply=True, attachment_ids=attachment_ids)

    async def send_notice(self, content: str, mentions: Mentions = None) -> Any:
        """Post an adapter-owned message (status, prompt); it does not answer the turn."""
        return await self._post(content, mentions, reply=False)

    async def _post_event(
        self, content: str, message_type: str, metadata: dict[str, Any] | None
    ) -> Any:
        capped = event_content(content, room_id=self.room_id, kind=f"{message_type} event")
        if capped is None:
            return None
        try:
            created = await self.backend.post_event(self.room_id, capped, message_type, metadata)
        except BandRestError as exc:
            raise classified_post_error(exc, self.room_id) from exc
        self.turn.record(TurnEffect.OBSERVE)
        return created

    async def send_event(
        self, content: str, message_type: str, metadata: dict[str, Any] | None = None
    ) -> Any:
        """Post an event (thought, error, task, tool_call, tool_result); no mentions."""
        return await self._post_event(content, message_type, metadata)

    async def no_reply(self, reason: str | None = None) -> dict[str, Any]:
        """Decline to answer this turn (local only)."""
        logger.info("Room %s: no reply this turn (reason: %s)", self.room_id, reason)
        self.turn.record(TurnEffect.DECLINE)
        return {"status": "no_reply"}

    async def send_failure(self, failure: AgentFailure) -> Any:
        """Post ``failure`` as an error event; the runtime then skips its generic notice."""
        content, metadata = to_failure_event(failure)
        try:
            created = await self._post_event(content, "error", metadata)
        except RoomExecutionStoppedError:
            raise
        except Exception as exc:
            logger.warning("Room %s: could not report failure: %s", self.room_id, exc)
            return {"ok": False, "error": str(exc)}
        self.turn.note_reported()
        return created

    # participants and rooms

    async def get_participants(self) -> list[dict[str, Any]]:
        """The room's participants (refreshes the cached roster)."""
        members = await self.backend.get_participants(self.room_id)
        self.roster.replace(members)
        self.turn.record(TurnEffect.OBSERVE)
        return members

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> dict[str, Any]:
        """Agents and people that could be added to this room."""
        peers, metadata = await self.backend.lookup_peers(page, page_size, not_in_chat=self.room_id)
        self.turn.record(TurnEffect.OBSERVE)
        return {"data": peers, "metadata": metadata}

    async def _find_peer(self, identifier: str) -> dict[str, Any] | None:
        bare = identifier.strip().removeprefix("@")
        for page in range(1, 11):
            peers, metadata = await self.backend.lookup_peers(page, 100, not_in_chat=self.room_id)
            for peer in peers:
                if bare in (peer.get("id"), peer.get("handle"), peer.get("name")):
                    return peer
            if page >= int(metadata.get("total_pages") or 1):
                return None
        return None

    async def add_participant(self, identifier: str, role: str = "member") -> dict[str, Any]:
        """Add an agent or person (peer id preferred; handle or name also work)."""
        member = self.roster.find(identifier)
        if member is not None:
            self.turn.record(TurnEffect.ACT)
            status = "already_in_room"
            return {"id": member["id"], "name": member.get("name"), "role": role, "status": status}
        peer = await self._find_peer(identifier)
        if peer is None:
            raise ValueError(f"Participant '{identifier}' not found among peers")
        added = await self.backend.add_participant(self.room_id, str(peer["id"]), role)
        self.roster.add({**peer, **added})
        self.turn.record(TurnEffect.ACT)
        return {"id": peer["id"], "name": peer.get("name"), "role": role, "status": "added"}

    async def remove_participant(self, identifier: str) -> dict[str, Any]:
        """Remove a participant by handle, name or id."""
        member = self.roster.find(identifier)
        if member is None:
            raise self.roster.unknown(identifier)
        await self.backend.remove_participant(self.room_id, str(member["id"]))
        self.roster.remove(str(member["id"]))
        self.turn.record(TurnEffect.ACT)
        return {"id": member["id"], "name": member.get("name"), "status": "removed"}

    async def fetch_room_context(
        self, *, room_id: str | None = None, page: int = 1, page_size: int = 50
    ) -> dict[str, Any]:
        """One page of the agent's context in a room: ``{"data": [...], "meta": {...}}``."""
        data, meta = await self.backend.get_context(
            room_id or self.room_id, page=page, page_size=page_size
        )
        return {"data": data, "meta": meta}

    async def create_chatroom(self, task_id: str | None = None) -> str:
        """Create a room owned by the agent; returns its id."""
        room = await self.backend.create_chat(task_id=task_id)
        self.turn.record(TurnEffect.ACT)
        return str(room["id"] if isinstance(room, Mapping) else room.id)
