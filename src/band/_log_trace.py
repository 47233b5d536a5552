"""The turn's correlation id on log records: ``trace_context_scope`` sets it, a filter stamps it.

The id is the W3C traceparent when OpenTelemetry is active, else a fresh id per turn;
``band.logging_config`` re-exports these names.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

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
    propagate, _ = _opentelemetry()
    if propagate is None:
        return None
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier.get("traceparent")


@cache
def _opentelemetry() -> tuple[Any, Any]:
    """OpenTelemetry's ``propagate`` and ``trace`` modules (None, None without it), imported
    on the first turn rather than with ``band``."""
    try:
        from opentelemetry import propagate, trace  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None, None
    return propagate, trace


def _span_active() -> bool:
    """Whether OpenTelemetry has a valid span here (only then is there a traceparent)."""
    _, trace = _opentelemetry()
    return trace is not None and bool(trace.get_current_span().get_span_context().is_valid)


@contextmanager
def trace_context_scope() -> Iterator[None]:
    """One turn's correlation id on every log record inside (reset on exit, even on error):
    the traceparent of the active span, else 32 fresh random hex digits."""
    traceparent = current_traceparent() if _span_active() else None
    token = TRACE_CONTEXT.set(traceparent or os.urandom(16).hex())
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
