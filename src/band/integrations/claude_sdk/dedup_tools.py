"""``DedupingAgentTools``: a room's identical ``send_message`` calls within a window, posted once.

The Claude CLI can issue one MCP tool call again (a transport retry, a resumed session, a
late repeat after the turn ended), and each would post the same message to the room. The
room's tools are therefore wrapped: a send whose content and mentions (handles and the
older ``{"id", "handle"}`` form alike) equal one of the last ``ttl_seconds`` gets that
send's result back without posting; every other tool is the wrapped one's, unchanged. The
wrapper outlives a turn: ``bound`` points it at the next turn's tools, keeping what was sent.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, cast

from band.core.protocols import AgentToolsProtocol

__all__ = ["DEFAULT_DEDUP_MAX_ENTRIES", "DEFAULT_DEDUP_TTL_SECONDS", "DedupingAgentTools"]

logger = logging.getLogger("band.integrations.claude_sdk")
DEFAULT_DEDUP_TTL_SECONDS = 30.0
DEFAULT_DEDUP_MAX_ENTRIES = 64  # sends remembered; the oldest is forgotten first

Mentions = list[str] | list[dict[str, str]] | None
_Key = tuple[str, frozenset[str]]


def _key(content: str, mentions: Mentions) -> _Key:
    spelled = (
        m if isinstance(m, str) else str(m.get("handle") or m.get("id") or "")
        for m in mentions or ()
    )
    return content, frozenset(m for m in spelled if m)


class DedupingAgentTools:
    """``inner`` with repeated ``send_message`` calls answered from the first one."""

    def __init__(
        self,
        inner: AgentToolsProtocol,
        *,
        ttl_seconds: float = DEFAULT_DEDUP_TTL_SECONDS,
        max_entries: int = DEFAULT_DEDUP_MAX_ENTRIES,
        label: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.inner = inner
        self.ttl_seconds = ttl_seconds
        self.max_entries = max_entries
        self.label = label or "room"
        self._clock = clock
        self._sent: OrderedDict[_Key, tuple[float, Any]] = OrderedDict()
        self._lock = asyncio.Lock()  # a repeat arriving mid-send waits for the first

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (a copy in the making): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)

    def bound(self, inner: AgentToolsProtocol) -> AgentToolsProtocol:
        """This wrapper on ``inner`` (the next turn's tools), keeping what was sent."""
        self.inner = inner
        return cast(AgentToolsProtocol, self)

    async def send_message(self, content: str, mentions: Mentions = None) -> Any:
        key = _key(content, mentions)
        async with self._lock:
            now = self._clock()
            while self._sent and now - next(iter(self._sent.values()))[0] >= self.ttl_seconds:
                self._sent.popitem(last=False)
            if key in self._sent:
                logger.info("%s: a repeated band_send_message was not posted again", self.label)
                return self._sent[key][1]
            result = await self.inner.send_message(content, mentions)  # a failure is not kept
            self._sent[key] = (now, result)
            while len(self._sent) > self.max_entries:
                self._sent.popitem(last=False)
            return result
