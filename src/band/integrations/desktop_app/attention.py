"""Per-room bookkeeping of one conversation: its attention mode, when the agent's and the
view's loops last ticked, which view instance owns the display."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from band.integrations.desktop_app.room import MonitoringStatus
from band.integrations.desktop_app.tools import DEFAULT_ATTENTION, AttentionMode

__all__ = ["RoomSession", "Tick"]

logger = logging.getLogger(__name__)


@dataclass
class Tick:
    """When a loop last called, and how long that call said it would wait."""

    at: datetime
    quantum: float

    def stale(self, now: datetime, *, grace_s: float) -> bool:
        return (now - self.at).total_seconds() > self.quantum + grace_s


class RoomSession:
    """The facts the monitor decides by, keyed by room id."""

    def __init__(self, now: Callable[[], datetime], *, stale_grace_s: float) -> None:
        self._now = now
        self._grace = stale_grace_s
        self._modes: dict[str, AttentionMode] = {}
        self._agent_ticks: dict[str, Tick] = {}
        self._view_ticks: dict[str, Tick] = {}
        self._stale_reported: set[str] = set()
        self._owner: dict[str, str] = {}
        self._seen_instances: dict[str, set[str]] = {}

    def mode(self, chat_id: str) -> AttentionMode:
        return self._modes.get(chat_id, DEFAULT_ATTENTION)

    def set_mode(self, chat_id: str, mode: AttentionMode) -> None:
        if mode is not self.mode(chat_id):
            logger.info("attention chat=%s mode=%s", chat_id, mode)
        self._modes[chat_id] = mode

    def note_model_tick(self, chat_id: str, *, quantum: float) -> None:
        """The agent's monitor loop called."""
        self._agent_ticks[chat_id] = Tick(self._now(), quantum)

    def note_view_tick(self, chat_id: str, *, quantum: float) -> None:
        """A live view of the room called (or was just mounted)."""
        self._view_ticks[chat_id] = Tick(self._now(), quantum)

    def view_missing(self, chat_id: str) -> bool:
        """Whether no live view shows the room (never mounted, or silent too long)."""
        tick = self._view_ticks.get(chat_id)
        return tick is None or tick.stale(self._now(), grace_s=self._grace)

    def monitoring(self, chat_id: str) -> MonitoringStatus:
        """The agent's loop in room_first attention (unknown before its first call; not
        tracked at all in user_first, where not looping is the intent)."""
        tick = self._agent_ticks.get(chat_id)
        if self.mode(chat_id) is not AttentionMode.ROOM_FIRST or tick is None:
            return MonitoringStatus()
        now = self._now()
        idle = (now - tick.at).total_seconds()
        return MonitoringStatus(idle_seconds=idle, stale=tick.stale(now, grace_s=self._grace))

    def claim_stale_report(self, chat_id: str, monitoring: MonitoringStatus) -> bool:
        """True for the first stale reading since the loop last ran (report it once)."""
        if not monitoring.stale:
            self._stale_reported.discard(chat_id)
            return False
        if chat_id in self._stale_reported:
            return False
        self._stale_reported.add(chat_id)
        return True

    def view_is_current(self, chat_id: str, instance: str | None) -> bool:
        """Whether ``instance`` owns the room's display: the instance seen first most recently
        owns it; an older one calling again never takes it back."""
        if not instance:
            return True
        seen = self._seen_instances.setdefault(chat_id, set())
        if instance not in seen:
            seen.add(instance)
            self._owner[chat_id] = instance
            logger.info("view instance chat=%s owner=%s", chat_id, instance)
        return self._owner[chat_id] == instance
