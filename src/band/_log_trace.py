"""The turn's correlation id on log records: ``trace_context_scope`` sets it, a filter stamps it.

The id is the W3C traceparent when OpenTelemetry is active, else a fresh id per turn;
``band.logging_config`` re-exports these names.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = [
    "TRACE_CONTEXT",
    "core_issues",
    "current_traceparent",
    "trace_context_extra",
    "trace_context_scope",
]

TRACE_CONTEXT: ContextVar[str | None] = ContextVar("band_trace_context", default=None)


def current_traceparent() -> str | None:
    """The active W3C ``traceparent``, or None (no OpenTelemetry, or no active span)."""
    try:
        from opentelemetry import propagate  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier.get("traceparent")


@contextmanager
def trace_context_scope() -> Iterator[None]:
    """One turn's correlation id on every log record inside (reset on exit, even on error)."""
    token = TRACE_CONTEXT.set(current_traceparent() or uuid.uuid4().hex)
    try:
        yield
    finally:
        TRACE_CONTEXT.reset(token)


class _TraceContextFilter(logging.Filter):
    """Stamps the ambient ``trace_context`` on records that carry none of their own."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "trace_context"):
            record.trace_context = TRACE_CONTEXT.get()
        return True


def trace_context_extra(exc: BaseException) -> dict[str, str]:
    """``extra=`` naming ``exc``'s own ``trace_context`` (empty when it has none)."""
    value = getattr(exc, "trace_context", None)
    return {"trace_context": value} if value else {}


def core_issues(exc: BaseException) -> list[tuple[str, str, str]] | None:
    """The structured violations a wire-rule ``ValueError`` carries (``.issues``), if any."""
    issues: list[tuple[str, str, str]] | None = getattr(exc, "issues", None)
    return issues
