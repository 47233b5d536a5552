"""``SlackHistoryConverter``: the Slack thread a room mirrors, from its ``task`` event."""

from __future__ import annotations

from typing import Any

from band.converters.helpers import task_metadata
from band.core.protocols import HistoryConverter
from band.integrations.slack.types import SlackRoomBinding, SlackSessionState

__all__ = ["SlackHistoryConverter"]


class SlackHistoryConverter(HistoryConverter[SlackSessionState]):
    """Reads ``slack_app_slug`` / ``slack_channel_id`` / ``slack_thread_ts`` (latest wins)."""

    def convert(self, raw: list[dict[str, Any]]) -> SlackSessionState:
        for item in reversed(raw):
            metadata = task_metadata(item)
            if metadata is None:
                continue
            slug = metadata.get("slack_app_slug")
            channel = metadata.get("slack_channel_id")
            thread_ts = metadata.get("slack_thread_ts")
            if slug and channel and thread_ts and not metadata.get("slack_mirror"):
                return SlackSessionState(SlackRoomBinding(str(slug), str(channel), str(thread_ts)))
        return SlackSessionState()
