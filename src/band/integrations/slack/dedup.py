"""``SeenEvents``: Slack's retried or redelivered events, recognised by their ``event_id``."""

from __future__ import annotations

from collections import OrderedDict

__all__ = ["DEFAULT_SEEN_EVENTS_CACHE_SIZE", "SeenEvents"]

# Slack retries for minutes after a missed acknowledgement; this many ids covers that.
DEFAULT_SEEN_EVENTS_CACHE_SIZE = 10_000


class SeenEvents:
    """The most recent ``max_size`` event ids (least recently seen dropped first)."""

    def __init__(self, max_size: int = DEFAULT_SEEN_EVENTS_CACHE_SIZE) -> None:
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._max_size = max_size

    def is_dupe(self, event_id: str) -> bool:
        """True when ``event_id`` was seen before; remembers it either way."""
        if event_id in self._seen:
            self._seen.move_to_end(event_id)
            return True
        self._seen[event_id] = None
        if len(self._seen) > self._max_size:
            self._seen.popitem(last=False)
        return False

    def __len__(self) -> int:
        return len(self._seen)
