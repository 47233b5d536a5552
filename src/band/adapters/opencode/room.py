"""One room's OpenCode session as a turn reads it: the events of its session, the parts
already reported, the tokens spent, and how the turn ended."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from band.core.types import TurnUsage

__all__ = ["OpencodeRoom"]


@dataclass
class OpencodeRoom:
    """The room's session on the shared server (the supervisor's "process" of the room)."""

    room_id: str
    session_id: str
    created: bool
    client: Any  # OpencodeClient: alive while its event stream is read
    events: asyncio.Queue[dict[str, Any]] = field(default_factory=asyncio.Queue)
    assistant_messages: set[str] = field(default_factory=set)
    reported_calls: set[str] = field(default_factory=set)
    finished_calls: set[str] = field(default_factory=set)
    usage: TurnUsage = field(default_factory=TurnUsage)

    @property
    def alive(self) -> bool:
        return bool(self.client.alive)

    @property
    def pid(self) -> None:
        return None

    @property
    def exit_description(self) -> str:
        return str(self.client.ended or "its event stream stopped")

    def begin(self) -> None:
        """A new turn: forget the last one's events and counts."""
        while not self.events.empty():
            self.events.get_nowait()
        self.usage = TurnUsage()

    def add_tokens(self, tokens: dict[str, Any]) -> None:
        cache = tokens.get("cache") or {}
        self.usage = TurnUsage(
            input_tokens=self.usage.input_tokens + int(tokens.get("input") or 0),
            output_tokens=self.usage.output_tokens + int(tokens.get("output") or 0),
            cache_read_tokens=self.usage.cache_read_tokens + int(cache.get("read") or 0),
            cache_write_tokens=self.usage.cache_write_tokens + int(cache.get("write") or 0),
        )

    async def close(self) -> None:
        """Nothing to stop: the server and the session outlive the room's turns."""
