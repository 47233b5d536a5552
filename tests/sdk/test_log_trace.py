"""A turn's correlation id: the active span's traceparent, else a fresh random id per turn."""

from __future__ import annotations

import logging
import re

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider

from band.logging_config import TRACE_CONTEXT, current_traceparent, trace_context_scope

TRACEPARENT = re.compile(r"^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")


def test_without_a_span_each_turn_has_a_fresh_hex_id_reset_after() -> None:
    assert current_traceparent() is None
    seen = []
    for _ in range(3):
        with trace_context_scope():
            value = TRACE_CONTEXT.get()
            assert value is not None and re.fullmatch(r"[0-9a-f]{32}", value)
            seen.append(value)
        assert TRACE_CONTEXT.get() is None
    assert len(set(seen)) == 3


def test_the_id_is_reset_when_the_turn_raises() -> None:
    with pytest.raises(RuntimeError), trace_context_scope():
        raise RuntimeError("boom")
    assert TRACE_CONTEXT.get() is None


def test_inside_an_active_span_the_id_is_its_traceparent() -> None:
    tracer = TracerProvider().get_tracer("test")  # not the global provider: nothing leaks
    with tracer.start_as_current_span("turn") as span:
        context = span.get_span_context()
        with trace_context_scope():
            value = TRACE_CONTEXT.get()
        assert value == current_traceparent()
        assert value is not None and TRACEPARENT.match(value)
        assert f"-{context.trace_id:032x}-{context.span_id:016x}-" in value


def test_an_invalid_span_context_is_no_traceparent() -> None:
    with trace.use_span(trace.INVALID_SPAN), trace_context_scope():
        value = TRACE_CONTEXT.get()
    assert value is not None and re.fullmatch(r"[0-9a-f]{32}", value)


def test_log_records_in_the_turn_carry_the_id(caplog: pytest.LogCaptureFixture) -> None:
    from band._log_trace import _TraceContextFilter

    logger = logging.getLogger("band.test_trace")
    logger.addFilter(_TraceContextFilter())
    try:
        with caplog.at_level(logging.INFO, logger="band.test_trace"), trace_context_scope():
            logger.info("inside")
            expected = TRACE_CONTEXT.get()
    finally:
        logger.filters.clear()
    assert [r.trace_context for r in caplog.records] == [expected]  # type: ignore[attr-defined]
