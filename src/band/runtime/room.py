"""``RoomState``: what an agent knows about one room (roster, context, session, system notes).

Owned by the room's ``ExecutionContext``; the turn pipeline and host code read it through
the context. Participants and context are fetched on first use and again after the cache
TTL; roster changes pushed by the platform apply at once.
"""

from __future__ import annotations

import logging
import time
from datetime import UTC, datetime
from typing import Any

from band.platform.rest import BandRestClient

from .config import SessionConfig
from .context import ConversationContext
from .history import (
    build_participants_message,
    delivery_processed,
    history_before,
    roster_entry,
)

__all__ = ["RoomState"]

log = logging.getLogger("band.runtime.room")
history_log = logging.getLogger("band.preprocessing.default")


class RoomState:
    """Roster, hydrated context, session bootstrap and pending system notes of one room."""

    def __init__(
        self, room_id: str, agent_id: str, rest: BandRestClient, session: SessionConfig
    ) -> None:
        self.room_id = room_id
        self.agent_id = agent_id
        self.rest = rest
        self.session = session
        self.roster: dict[str, dict[str, Any]] = {}
        self.context: list[dict[str, Any]] = []
        self.bootstrap = True
        self.hydrated_at: datetime | None = None
        self.system_messages: list[str] = []
        self._fetched_at: float | None = None
        self._sent: list[dict[str, Any]] | None = None

    # -- roster ------------------------------------------------------------------------------

    @property
    def participants(self) -> list[dict[str, Any]]:
        return [dict(p) for p in self.roster.values()]

    def set_roster(self, participants: list[dict[str, Any]]) -> None:
        entries = (roster_entry(p) for p in participants)
        self.roster = {e["id"]: e for e in entries if e is not None}

    def participant_added(self, payload: dict[str, Any]) -> bool:
        """Add or update one participant; True when the roster changed."""
        entry = roster_entry(payload)
        if entry is None or self.roster.get(entry["id"]) == entry:
            return False
        self.roster[entry["id"]] = entry
        return True

    def participant_removed(self, participant_id: str) -> bool:
        return self.roster.pop(participant_id, None) is not None

    def participants_changed(self) -> bool:
        """The roster differs from the one last handed to the model."""
        return self._sent != self.participants

    def mark_participants_sent(self, snapshot: list[dict[str, Any]] | None = None) -> None:
        """Record ``snapshot`` (default: the current roster) as handed to the model, unless the
        roster moved on since it was taken."""
        if snapshot is None or snapshot == self.participants:
            self._sent = self.participants

    def participants_message(self) -> str:
        return build_participants_message(self.roster.values(), agent_id=self.agent_id)

    def take_participants_message(self) -> str | None:
        """The roster text when it changed since last delivered (always on the first turn)."""
        if not self.participants_changed():
            return None
        self.mark_participants_sent()
        return self.participants_message()

    # -- context -----------------------------------------------------------------------------

    def _fresh(self) -> bool:
        cfg = self.session
        return self._fetched_at is not None and (
            cfg.enable_context_cache
            and time.monotonic() - self._fetched_at < cfg.context_cache_ttl_seconds
        )

    async def load_participants(self) -> list[dict[str, Any]]:
        """Fetch the roster from the platform (kept; a failure keeps the one we have)."""
        try:
            self.set_roster(await self.rest.get_participants(self.room_id))
        except Exception as exc:
            log.warning("Room %s: could not load participants: %s", self.room_id, exc)
        return self.participants

    async def ensure_hydrated(self, *, force: bool = False) -> None:
        """Fetch participants and context on first use, after the cache TTL, or when forced."""
        if self._fresh() and not force:
            return
        self._fetched_at = time.monotonic()
        self.hydrated_at = datetime.now(UTC)
        await self.load_participants()
        if not self.session.enable_context_hydration:
            return
        history_log.info("Room %s: Loading history...", self.room_id)
        try:
            items, _meta = await self.rest.get_context(self.room_id)
            self.context = items[-self.session.max_context_messages :]
            history_log.info("Room %s: Got %d messages", self.room_id, len(self.context))
        except Exception as exc:
            history_log.warning("Room %s: could not load history: %s", self.room_id, exc)
            self.context = []

    def conversation(self) -> ConversationContext:
        """The hydrated context as one object (empty before the first hydration)."""
        return ConversationContext(
            self.room_id,
            list(self.context),
            self.participants,
            self.hydrated_at or datetime.now(UTC),
        )

    def history_for(self, message_id: str | None) -> list[dict[str, Any]]:
        """Raw history items (role, content, sender_name, ...) before ``message_id``."""
        if not self.session.enable_context_hydration:
            return []
        return history_before(self.context, message_id or "", self.roster)

    def context_says_processed(self, message_id: str) -> bool:
        for item in self.context:
            if item.get("id") == message_id:
                return delivery_processed(item, self.agent_id)
        return False

    def bootstrap_done(self) -> None:
        self.bootstrap = False

    def reset_session(self) -> None:
        """Forget the cached context so the next turn bootstraps again."""
        self._fetched_at = None
        self.bootstrap = True

    # -- system notes ------------------------------------------------------------------------

    def commit_system_messages(self, prepared: list[str]) -> None:
        """Drop the notes ``prepared`` was taken from, keeping any that arrived since."""
        if self.system_messages[: len(prepared)] == prepared:
            del self.system_messages[: len(prepared)]
