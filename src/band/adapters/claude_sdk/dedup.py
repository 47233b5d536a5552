"""Identical ``band_send_message`` calls of one room within a window, posted once.

The Claude CLI can issue one MCP tool call again (a transport retry, a resumed session),
and each would post the same message to the room. A room's tools are therefore wrapped:
a send whose content and mentions equal one of the last ``ttl_s`` seconds gets that send's
result back without posting; every other tool goes to the turn's tools unchanged.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, cast

from band.core.protocols import AgentToolsProtocol

__all__ = ["DEFAULT_DEDUP_TTL_SECONDS", "SendDedup"]

DEFAULT_DEDUP_TTL_SECONDS = 30.0
MAX_REMEMBERED = 64  # sends remembered per room; the oldest is forgotten first

_Key = tuple[str, frozenset[Any]]


def _key(content: str, mentions: list[str] | list[dict[str, str]] | None) -> _Key:
    spelled = (m if isinstance(m, str) else tuple(sorted(m.items())) for m in mentions or ())
    return content, frozenset(spelled)


class SendDedup:
    """The recent sends of one room, kept across its turns."""

    def __init__(self, ttl_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._sent: OrderedDict[_Key, tuple[float, Any]] = OrderedDict()
        self._lock = asyncio.Lock()  # a repeat arriving mid-send waits for the first

    def bind(self, tools: AgentToolsProtocol) -> AgentToolsProtocol:
        """``tools`` with ``send_message`` deduplicated (everything else as it is)."""
        return cast(AgentToolsProtocol, _DedupedTools(tools, self))

    async def send(
        self,
        tools: AgentToolsProtocol,
        content: str,
        mentions: list[str] | list[dict[str, str]] | None,
    ) -> Any:
        key = _key(content, mentions)
        async with self._lock:
            now = self._clock()
            while self._sent and now - next(iter(self._sent.values()))[0] >= self.ttl_s:
                self._sent.popitem(last=False)
            if key in self._sent:
                return self._sent[key][1]
            result = await tools.send_message(content, mentions)  # a failure is not kept
            self._sent[key] = (now, result)
            while len(self._sent) > MAX_REMEMBERED:
                self._sent.popitem(last=False)
            return result


class _DedupedTools:
    def __init__(self, inner: AgentToolsProtocol, dedup: SendDedup) -> None:
        self._inner = inner
        self._dedup = dedup

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def send_message(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> Any:
        return await self._dedup.send(self._inner, content, mentions)
