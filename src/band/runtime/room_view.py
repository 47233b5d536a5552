"""``RoomView``: what a room's execution exposes of its ``RoomState`` to turns and adapters.

The participants, the conversation context, the pending system notes and the history, each
read from (or written to) the room's ``RoomState``; ``ExecutionContext`` inherits it.
"""

from __future__ import annotations

from typing import Any

from .context import ConversationContext
from .room import RoomState

__all__ = ["RoomView"]


class RoomView:
    """The room-state half of ``ExecutionContext`` (its ``room`` attribute does the work)."""

    room: RoomState

    @property
    def participants(self) -> list[dict[str, Any]]:
        return self.room.participants

    def set_participants(self, participants: list[dict[str, Any]]) -> None:
        self.room.set_roster(participants)

    def add_participant(self, participant: dict[str, Any]) -> bool:
        return self.room.participant_added(participant)

    def remove_participant(self, participant_id: str) -> bool:
        return self.room.participant_removed(participant_id)

    def participants_changed(self) -> bool:
        return self.room.participants_changed()

    def mark_participants_sent(self, snapshot: list[dict[str, Any]] | None = None) -> None:
        self.room.mark_participants_sent(snapshot)

    def build_participants_message(self) -> str:
        return self.room.participants_message()

    def inject_system_message(self, message: str) -> None:
        """Queue a system note for the next turn of this room."""
        self.room.system_messages.append(message)

    def peek_pending_system_messages(self) -> list[str]:
        """The pending notes, left pending (``commit_system_messages`` consumes them)."""
        return list(self.room.system_messages)

    def commit_system_messages(self, prepared: list[str]) -> None:
        """Consume the notes a turn used, keeping any that arrived meanwhile."""
        self.room.commit_system_messages(prepared)

    def get_pending_system_messages(self) -> list[str]:
        """Take the pending notes (peek and commit in one)."""
        pending = self.peek_pending_system_messages()
        self.commit_system_messages(pending)
        return pending

    async def load_participants(self) -> list[dict[str, Any]]:
        """Fetch the roster from the platform (and keep it)."""
        return await self.room.load_participants()

    async def hydrate(self) -> None:
        """Fetch participants and context now."""
        await self.room.ensure_hydrated(force=True)

    def build_context(self) -> ConversationContext:
        """What is known now, without a request (empty before the first hydration)."""
        return self.room.conversation()

    async def get_context(self, force_refresh: bool = False) -> ConversationContext:
        """Participants and context, fetched on first use, after the TTL, or when forced."""
        await self.room.ensure_hydrated(force=force_refresh)
        return self.build_context()

    def get_history_for_llm(self, exclude_message_id: str | None = None) -> list[dict[str, Any]]:
        """Raw history items (role, content, sender_name, ...) before ``exclude_message_id``;
        the context is hydrated before every turn."""
        return self.room.history_for(exclude_message_id)
