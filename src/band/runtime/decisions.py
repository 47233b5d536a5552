"""``DecisionRegistry``: questions asked in a room (approvals, choices), awaiting one answer.

Each ask gets a token and a ticket. Whoever claims an ask first (a reply, or its timeout)
owns answering it; a later claim gets nothing. A redelivered ask under the same key replaces
its open predecessor in place (a new ticket makes the old handle stale); past ``max_pending``
open asks the oldest is evicted. Registration answers with what it removed, so the caller
resolves those asks too.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Generic, Literal, TypeVar

__all__ = ["DecisionEntry", "DecisionRegistry", "Registration", "Timeout"]

logger = logging.getLogger(__name__)
T = TypeVar("T")
R = TypeVar("R")


class Timeout(Enum):
    """What ``wait`` answers when the deadline claimed the ask."""

    TIMED_OUT = "timed_out"


@dataclass(frozen=True, eq=False)
class DecisionEntry(Generic[T]):
    """One ask: its token, the ticket of this registration, and what was asked."""

    token: str
    ticket: int
    payload: T


@dataclass(frozen=True, eq=False)
class Registration(Generic[T]):
    """A new ask, and the open asks registering it removed."""

    entry: DecisionEntry[T]
    evicted: DecisionEntry[T] | None = None
    replaced: DecisionEntry[T] | None = None

    @property
    def removed(self) -> list[DecisionEntry[T]]:
        return [e for e in (self.evicted, self.replaced) if e is not None]


class DecisionRegistry(Mapping[str, T]):
    """Open asks by token, oldest first (``max_pending=None`` never evicts)."""

    def __init__(self, *, max_pending: int | None = None) -> None:
        self._max = max_pending
        self._entries: dict[str, DecisionEntry[T]] = {}
        self._claimed: set[str] = set()
        self._tickets = itertools.count(1)
        self._timeouts: dict[str, asyncio.Task[None]] = {}

    def __getitem__(self, token: str) -> T:
        return self._entries[token].payload

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def register_minted(self, payload: T) -> Registration[T]:
        """Ask under a new random token (evicting the oldest open ask when full)."""
        evicted = self._evict_if_full()
        token = secrets.token_hex(8)
        return Registration(self._store(token, payload), evicted=evicted)

    def register_keyed(self, payload: T, *, key: str) -> Registration[T] | None:
        """Ask under ``key``: a redelivery replaces its open predecessor; None when claimed."""
        if key in self._claimed:
            return None
        replaced = self._entries.get(key)
        evicted = None if replaced is not None else self._evict_if_full()
        return Registration(self._store(key, payload), evicted=evicted, replaced=replaced)

    def start_timeout(
        self,
        entry: DecisionEntry[T],
        seconds: float,
        on_timeout: Callable[[DecisionEntry[T]], Awaitable[None]],
    ) -> None:
        """After ``seconds`` claim ``entry`` and hand it to ``on_timeout`` (unless answered)."""
        if not self._holds(entry):
            return

        async def expire() -> None:
            await asyncio.sleep(seconds)
            if self._claim(entry) == "claimed":
                await on_timeout(entry)

        self._cancel_timeout(entry.token)
        self._timeouts[entry.token] = asyncio.create_task(expire())

    def try_claim(self, token: str) -> DecisionEntry[T] | None:
        """Own the ask behind ``token``, or None when someone else does (resolve it at once)."""
        entry = self._entries.get(token)
        return entry if entry is not None and self._claim(entry) == "claimed" else None

    def withdraw(self, entry: DecisionEntry[T]) -> bool:
        """Drop an unclaimed ask; False when claimed, replaced or gone."""
        if not self._holds(entry) or entry.token in self._claimed:
            return False
        self._discard(entry.token)
        return True

    def forget(self, entry: DecisionEntry[T]) -> None:
        """Drop the ask, claimed or not (a newer registration of its token stays)."""
        if self._holds(entry):
            self._discard(entry.token)

    def unclaimed(self) -> list[DecisionEntry[T]]:
        """The asks still waiting for an answer, oldest first."""
        return [e for t, e in self._entries.items() if t not in self._claimed]

    def unclaimed_count(self) -> int:
        return len(self._entries) - len(self._claimed)

    def oldest_unclaimed(self) -> DecisionEntry[T] | None:
        return next(iter(self.unclaimed()), None)

    def has_unclaimed(self) -> bool:
        return self.unclaimed_count() > 0

    def has_claimed(self) -> bool:
        return bool(self._claimed)

    def cancel_all(self) -> list[DecisionEntry[T]]:
        """Drop every ask; the unclaimed ones come back for the caller to resolve."""
        open_asks = self.unclaimed()
        for token in list(self._entries):
            self._discard(token)
        return open_asks

    async def wait(
        self, entry: DecisionEntry[T], future: asyncio.Future[R], *, timeout_s: float
    ) -> R | Literal[Timeout.TIMED_OUT]:
        """The answer to ``entry``, or ``TIMED_OUT`` when the deadline claims it first.

        An answer that claimed the ask before the deadline is always waited for.
        """
        try:
            async with asyncio.timeout(timeout_s):
                return await asyncio.shield(future)
        except TimeoutError:
            if future.done():
                return future.result()
            if self._claim(entry) == "already":
                return await future
            return Timeout.TIMED_OUT
        finally:
            self.forget(entry)

    def _holds(self, entry: DecisionEntry[T]) -> bool:
        return self._entries.get(entry.token) is entry

    def _claim(self, entry: DecisionEntry[T]) -> str:
        if not self._holds(entry):
            return "stale"
        if entry.token in self._claimed:
            return "already"
        self._claimed.add(entry.token)
        self._cancel_timeout(entry.token)
        return "claimed"

    def _store(self, token: str, payload: T) -> DecisionEntry[T]:
        self._cancel_timeout(token)
        entry = DecisionEntry(token, next(self._tickets), payload)
        self._entries.pop(token, None)
        self._entries[token] = entry
        return entry

    def _evict_if_full(self) -> DecisionEntry[T] | None:
        if self._max is None or self.unclaimed_count() < self._max:
            return None
        oldest = self.oldest_unclaimed()
        return self._discard(oldest.token) if oldest is not None else None

    def _discard(self, token: str) -> DecisionEntry[T]:
        self._cancel_timeout(token)
        self._claimed.discard(token)
        return self._entries.pop(token)

    def _cancel_timeout(self, token: str) -> None:
        task = self._timeouts.pop(token, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()
