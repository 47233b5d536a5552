"""Whether a turn's context (bootstrap history, roster, notes) counts as handed to the model.

The host opens ``context_delivery()`` around one adapter call and commits the context unless
``should_commit`` turns false. An adapter opens ``context_handoff()`` around its setup (the
history conversion, say) and calls ``consume()`` just before the framework runs: when setup
fails before that, the context is retained so the retry sees it again; after it, a failure
cannot prove the model never saw it, so it stays committed. The state is context-local, so
a task spawned by a delivery cannot change its parent's decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import Enum, auto

__all__ = [
    "ContextDelivery",
    "ContextDisposition",
    "ContextHandoff",
    "context_delivery",
    "context_handoff",
]


class ContextDisposition(Enum):
    """Where one delivery's context stands."""

    PENDING = auto()
    CONSUMED = auto()
    RETAIN = auto()


_disposition: ContextVar[ContextDisposition | None] = ContextVar(
    "band_context_disposition", default=None
)


class ContextDelivery:
    """The host's view of one delivery scope."""

    @property
    def should_commit(self) -> bool:
        return _disposition.get() is not ContextDisposition.RETAIN


@contextmanager
def context_delivery() -> Iterator[ContextDelivery]:
    """One delivery: committed unless a handoff proves the context was not consumed."""
    token = _disposition.set(ContextDisposition.PENDING)
    try:
        yield ContextDelivery()
    finally:
        _disposition.reset(token)


@dataclass
class ContextHandoff:
    """An adapter's setup scope; ``consume()`` marks the context as given to the framework."""

    consumed: bool = False

    def consume(self) -> None:
        self.consumed = True
        if _disposition.get() is not None:
            _disposition.set(ContextDisposition.CONSUMED)


@contextmanager
def context_handoff() -> Iterator[ContextHandoff]:
    """Retain the context when setup raises before ``consume()``; the error propagates."""
    handoff = ContextHandoff()
    try:
        yield handoff
    except BaseException:
        if not handoff.consumed and _disposition.get() is ContextDisposition.PENDING:
            _disposition.set(ContextDisposition.RETAIN)
        raise
