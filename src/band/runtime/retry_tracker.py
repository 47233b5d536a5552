"""``MessageRetryTracker``: attempts per message id in this process, against a budget."""

from __future__ import annotations

__all__ = ["MessageRetryTracker"]


class MessageRetryTracker:
    """Counts attempts per message; past ``max_retries`` a message is given up on."""

    def __init__(self, max_retries: int = 1, room_id: str = "") -> None:
        self._max = max_retries
        self.room_id = room_id
        self.attempts: dict[str, int] = {}
        self._failed: set[str] = set()

    @property
    def max_retries(self) -> int:
        return self._max

    def record_attempt(self, msg_id: str) -> tuple[int, bool]:
        """Count an attempt: ``(count, exceeded)``; exceeded once the budget is spent."""
        count = self.attempts.get(msg_id, 0) + 1
        self.attempts[msg_id] = count
        return count, count > self._max

    def discard_attempt(self, msg_id: str) -> None:
        """An interrupted or stopped attempt is not charged."""
        if self.attempts.get(msg_id, 0) > 0:
            self.attempts[msg_id] -= 1

    def mark_success(self, msg_id: str) -> None:
        self.attempts.pop(msg_id, None)
        self._failed.discard(msg_id)

    def mark_permanently_failed(self, msg_id: str) -> None:
        self._failed.add(msg_id)

    def is_permanently_failed(self, msg_id: str) -> bool:
        return msg_id in self._failed or self.attempts.get(msg_id, 0) > self._max
