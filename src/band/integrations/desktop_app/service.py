"""The room view's reads: the agent's transcript of a room, over REST, woken by the relay.

``RoomTranscriptService.read`` returns what the agent sees of a room: its roster, the
messages after a cursor (walking back from the last page of the agent's context until the
cursor is covered, within a page budget), the messages that address the agent and are still
unanswered, and the briefing. ``wait_for_room_event`` answers at once when the caller is
behind, else waits for the room's next event (or the timeout) and reads again: the platform
does not echo the agent's own messages to its socket, so every wait ends in a read.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from band.client.rest import DEFAULT_REQUEST_OPTIONS, AsyncRestClient, ChatRoomRequest
from band.integrations.desktop_app.attention import RoomSession
from band.integrations.desktop_app.event_relay import RelayStatus, RoomEventBroker
from band.integrations.desktop_app.prompts import (
    ambiguous_room_guidance,
    monitoring_notice,
    room_briefing,
    unknown_room_guidance,
)
from band.integrations.desktop_app.room import (
    EPOCH,
    AgentIdentity,
    HostProfile,
    RoomEvent,
    RoomMessage,
    RoomParticipant,
    RoomTranscript,
    parse_timestamp,
)
from band.integrations.desktop_app.settings import RoomViewTuning
from band.runtime.tools import AgentTools, iter_chat_pages, serialize_tool_result

__all__ = [
    "AgentTranscriptTools",
    "ReadPulse",
    "ResumeCursor",
    "RoomTranscriptService",
    "TranscriptTools",
    "covers",
]

logger = logging.getLogger(__name__)

UUID_PATTERN = re.compile(
    r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.IGNORECASE
)


def covers(tail: list[RoomMessage], *, after: datetime | None, limit: int) -> bool:
    """Whether the messages read so far hold all a read owes: ``limit`` of them without a
    cursor; with one, a message strictly before it (the cursor is inclusive)."""
    if after is None:
        return len(tail) >= limit
    return bool(tail) and tail[0].at < after


class TranscriptTools(Protocol):
    """The platform reads the service needs (the agent's own REST surface)."""

    async def get_agent_profile(self) -> dict[str, Any]: ...

    async def create_room(self, task_id: str | None = None) -> str: ...

    async def list_rooms(self) -> list[dict[str, Any]]: ...

    async def list_participants(self, chat_id: str) -> list[dict[str, Any]]: ...

    async def list_agent_context(
        self, chat_id: str, *, page: int, page_size: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]: ...


class AgentTranscriptTools:
    """``TranscriptTools`` over the agent's REST client and room-bound ``AgentTools``."""

    def __init__(self, rest: AsyncRestClient) -> None:
        self._rest = rest
        self._rooms: dict[str, AgentTools] = {}

    def _room(self, chat_id: str) -> AgentTools:
        if chat_id not in self._rooms:
            self._rooms[chat_id] = AgentTools(chat_id, self._rest)
        return self._rooms[chat_id]

    async def get_agent_profile(self) -> dict[str, Any]:
        me = await self._rest.agent_api_identity.get_agent_me(
            request_options=DEFAULT_REQUEST_OPTIONS
        )
        answer = serialize_tool_result(me)
        profile: dict[str, Any] = answer.get("data") or answer
        return profile

    async def create_room(self, task_id: str | None = None) -> str:
        chat = ChatRoomRequest(task_id=task_id) if task_id else ChatRoomRequest()
        created = await self._rest.agent_api_chats.create_agent_chat(
            chat=chat, request_options=DEFAULT_REQUEST_OPTIONS
        )
        return str(created.data.id)

    async def list_rooms(self) -> list[dict[str, Any]]:
        async def page(number: int, size: int) -> Any:
            return await self._rest.agent_api_chats.list_agent_chats(
                page=number, page_size=size, request_options=DEFAULT_REQUEST_OPTIONS
            )

        rooms: list[dict[str, Any]] = []
        async for answer in iter_chat_pages(page):
            rooms.extend(serialize_tool_result(item) for item in answer.data or [])
        return rooms

    async def list_participants(self, chat_id: str) -> list[dict[str, Any]]:
        members = await self._room(chat_id).get_participants()
        return [serialize_tool_result(member) for member in members or []]

    async def list_agent_context(
        self, chat_id: str, *, page: int, page_size: int
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        context = await self._room(chat_id).fetch_room_context(
            room_id=chat_id, page=page, page_size=page_size
        )
        return context["data"], context["meta"]


@dataclass
class ReadPulse:
    """The newest message any read of a room returned (how far behind a caller may be)."""

    newest_message_at: datetime


@dataclass
class ResumeCursor:
    """The messages already delivered at one cursor timestamp (ties are not repeated)."""

    timestamp: datetime
    message_ids: set[str]


class RoomTranscriptService:
    """Reads the agent's view of rooms; one per room view process."""

    def __init__(
        self,
        tools: TranscriptTools,
        *,
        viewer: AgentIdentity | None = None,
        events: RoomEventBroker | None = None,
        transport: RelayStatus | None = None,
        tuning: RoomViewTuning | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._tools = tools
        self._viewer = viewer
        self._events = events
        self._transport = transport or RelayStatus()
        self.tuning = tuning or RoomViewTuning()
        self._now = now
        self._rosters: dict[str, list[RoomParticipant]] = {}
        self._announced: set[str] = set()
        self._pulses: dict[str, ReadPulse] = {}
        self._cursors: dict[tuple[str, str | None], ResumeCursor] = {}
        self.session = RoomSession(now, stale_grace_s=self.tuning.band_room_stale_grace_s)
        self.host = HostProfile()

    async def viewer(self) -> AgentIdentity:
        """The agent this conversation acts as (read once, then cached)."""
        return self._viewer or await self.refresh_viewer()

    async def refresh_viewer(self) -> AgentIdentity:
        self._viewer = AgentIdentity.model_validate(await self._tools.get_agent_profile())
        return self._viewer

    async def create_room(self, task_id: str | None = None) -> str:
        return await self._tools.create_room(task_id)

    async def resolve_room(self, room: str) -> str:
        """The room id a join names: a UUID as it is; else a room id or title (part of it,
        any case) among the agent's rooms; no match or several raise with the choices."""
        query = room.strip()
        if UUID_PATTERN.match(query):
            return query
        rooms = await self._tools.list_rooms()
        if any(str(r.get("id")) == query for r in rooms):
            return query
        hits = [r for r in rooms if query.lower() in str(r.get("title") or "").lower()]
        limit = self.tuning.band_named_rooms_limit
        if len(hits) == 1:
            return str(hits[0]["id"])
        if hits:
            raise ValueError(ambiguous_room_guidance(room, hits, limit=limit))
        raise ValueError(unknown_room_guidance(room, rooms, limit=limit))

    async def participants(self, chat_id: str, *, refresh: bool = False) -> list[RoomParticipant]:
        """The room's roster, cached; a failed read keeps the last one (or none)."""
        if refresh or chat_id not in self._rosters:
            try:
                members = await self._tools.list_participants(chat_id)
                self._rosters[chat_id] = [RoomParticipant.model_validate(m) for m in members]
            except Exception:
                logger.warning("could not read the room's participants", exc_info=True)
                self._rosters.setdefault(chat_id, [])
        return self._rosters[chat_id]

    def capture_host(self, params: Any) -> None:
        """Remember what the host declared (the first time it is known)."""
        if self.host.captured or params is None:
            return
        self.host = HostProfile.from_client_params(params)
        logger.info("desktop host: %s", self.host.model_dump())

    def unannounced_rooms(self, current_chat_id: str) -> list[str]:
        """Rooms the agent was added to that it has not been told about yet."""
        fresh = [
            r
            for r in self._transport.rooms_added
            if r != current_chat_id and r not in self._announced
        ]
        self._announced.update(fresh)
        return fresh

    async def _messages_since(
        self, chat_id: str, *, after: datetime | None, limit: int
    ) -> list[RoomMessage]:
        """The messages a caller at ``after`` is owed (the newest ``limit`` without one)."""
        size = self.tuning.band_transcript_page_size
        first, meta = await self._tools.list_agent_context(chat_id, page=1, page_size=size)
        last_page = max(int(meta.get("total_pages") or 1), 1)
        stop_at = max(1, last_page - self.tuning.band_max_transcript_pages + 1)
        tail: list[RoomMessage] = []
        for number in range(last_page, stop_at - 1, -1):
            if number == 1:
                items = first
            else:
                items, _ = await self._tools.list_agent_context(
                    chat_id, page=number, page_size=size
                )
            tail = [RoomMessage.model_validate(item) for item in items] + tail
            if covers(tail, after=after, limit=limit):
                break
        else:
            if stop_at > 1:
                logger.warning(
                    "read of room %s stopped at its %d-page budget; pages before %d unread",
                    chat_id,
                    self.tuning.band_max_transcript_pages,
                    stop_at,
                )
        return tail if after is not None else tail[-limit:]

    async def read(
        self,
        chat_id: str,
        *,
        since: str | None = None,
        refresh_participants: bool = False,
        cursor_consumer: str | None = None,
    ) -> RoomTranscript:
        """What the agent sees of the room after ``since`` (newest last), annotated.

        Each consumer (the agent's loop, each view instance) keeps its own cursor, starting
        from the shared one the opening read left, so no loop consumes another's messages.
        """
        viewer = await self.viewer()
        roster = await self.participants(chat_id, refresh=refresh_participants)
        after = parse_timestamp(since)
        prior = self._cursors.get((chat_id, cursor_consumer))
        if prior is None and cursor_consumer is not None:
            prior = self._cursors.get((chat_id, None))
        delivered = prior.message_ids if prior is not None and prior.timestamp == after else set()
        found = await self._messages_since(
            chat_id, after=after, limit=self.tuning.band_initial_transcript_messages
        )
        seen: set[str] = set()
        messages: list[RoomMessage] = []
        for message in found:
            if message.id and message.id in seen:
                continue
            seen.add(message.id)
            if after and (message.at < after or (message.at == after and message.id in delivered)):
                continue
            message.addressed_to_viewer = message.addresses(viewer)  # before truncating
            message.truncate(self.tuning.band_max_message_chars)
            message.render_mentions(roster)
            messages.append(message)
        messages.sort(key=lambda m: (m.at, m.id))
        # Only a timestamp the platform gave becomes the cursor, never this machine's clock.
        next_since = messages[-1].at if messages else (after or EPOCH)
        tied = {m.id for m in found if m.at == next_since and m.id}
        self._cursors[(chat_id, cursor_consumer)] = ResumeCursor(next_since, tied)
        # On the opening read, the agent's own last message answers what came before it.
        answered_through = (
            EPOCH
            if after is not None
            else max((m.at for m in messages if m.sender_id == viewer.id), default=EPOCH)
        )
        pending = [
            m
            for m in messages
            if m.addressed_to_viewer
            and m.sender_id != viewer.id
            and m.at > answered_through
            and m.is_text
        ]
        transcript = RoomTranscript(
            chat_id=chat_id,
            viewer=viewer,
            participants=roster,
            messages=messages,
            pending_requests=pending,
            next_since=next_since,
        )
        transcript.transport = self._transport
        transcript.monitoring = self.session.monitoring(chat_id)
        transcript.monitoring_notice = monitoring_notice(transcript.monitoring)
        transcript.attention = self.session.mode(chat_id)
        transcript.host = self.host
        transcript.role_briefing = room_briefing(transcript)
        return transcript

    async def wait_for_room_event(
        self,
        chat_id: str,
        *,
        since: str | None,
        timeout_seconds: int,
        cursor_consumer: str | None = None,
    ) -> RoomEvent:
        """The next change of the room: at once when the caller is behind the newest message
        ever read, else after the room's next event or the timeout (then read either way)."""
        if self._events is None:
            raise RuntimeError("Room WebSocket events are not configured.")
        version = self._events.version(chat_id)
        after = parse_timestamp(since)
        pulse = self._pulses.get(chat_id)
        if pulse is None or after is None or after < pulse.newest_message_at:
            transcript = await self._read_noting(
                chat_id, since=since, cursor_consumer=cursor_consumer
            )
            if transcript.messages:
                return RoomEvent(**dict(transcript), event_received=True)
        changed = await self._events.wait(
            chat_id, after_version=version, timeout_seconds=timeout_seconds
        )
        transcript = await self._read_noting(
            chat_id,
            since=since,
            refresh_participants=changed,
            cursor_consumer=cursor_consumer,
        )
        return RoomEvent(**dict(transcript), event_received=changed)

    async def _read_noting(
        self,
        chat_id: str,
        *,
        since: str | None,
        refresh_participants: bool = False,
        cursor_consumer: str | None = None,
    ) -> RoomTranscript:
        transcript = await self.read(
            chat_id,
            since=since,
            refresh_participants=refresh_participants,
            cursor_consumer=cursor_consumer,
        )
        previous = self._pulses.get(chat_id)
        newest = max(
            [m.at for m in transcript.messages]
            + [previous.newest_message_at if previous else EPOCH]
        )
        self._pulses[chat_id] = ReadPulse(newest)
        return transcript
