"""W3C trace context across the platform and the SDK: one turn is one trace.

How it works: docs/internals/sdk.md, "Trace context on the wire".

Both sides use this module for how the context travels (REST headers, top-level keys of a
push). On only with an OTLP endpoint and the ``otel`` extra; off, every call is a no-op.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any, Literal

__all__ = [
    "TRACEPARENT",
    "TRACESTATE",
    "TRACING",
    "configure",
    "context_of",
    "current",
    "inject",
    "reset",
    "route_name",
    "shutdown",
    "span",
    "start",
    "trace_id",
]

TRACEPARENT = "traceparent"
TRACESTATE = "tracestate"
Kind = Literal["internal", "server", "client", "producer", "consumer"]
_ID = re.compile(r"/(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d+)(?=/|$)")

log = logging.getLogger("band.tracing")


class _Tracing:
    """The process's switch (``on``) and, when on, its OpenTelemetry tracer."""

    __slots__ = ("on", "provider", "service", "tracer")

    def __init__(self) -> None:
        self.on = False
        self.service: str | None = None
        self.tracer: Any = None
        self.provider: Any = None


TRACING = _Tracing()
_NOOP = contextlib.nullcontext()


def _wanted(env: Mapping[str, str]) -> bool:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower() == "none":
        return False
    return bool(
        env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def configure(service: str, env: Mapping[str, str] | None = None) -> bool:
    """Turn tracing on if the environment asks for it; whether it is on. The first call of a
    process names its service (``OTEL_SERVICE_NAME`` wins); later calls change nothing."""
    if TRACING.service is not None:
        return TRACING.on
    env = os.environ if env is None else env
    TRACING.service = env.get("OTEL_SERVICE_NAME") or service
    if not _wanted(env):
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        log.warning(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but OpenTelemetry is not installed (%s): "
            "pip install 'openband[otel]'; tracing stays off",
            exc.name,
        )
        return False
    # A provider of our own, not the process-wide one: a host application's tracing (or a
    # test's) is left as it is, and ``reset`` can turn ours off again.
    provider = TracerProvider(resource=Resource.create({"service.name": TRACING.service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    TRACING.provider = provider
    TRACING.tracer = provider.get_tracer("band")
    TRACING.on = True
    log.info("tracing on: spans of %s go to OTLP", TRACING.service)
    return True


def shutdown() -> None:
    """Send the spans still buffered (the SDK also does it at exit)."""
    if TRACING.on:
        TRACING.provider.force_flush()


def reset() -> None:
    """Back to off and unconfigured (tests; a process configures once otherwise)."""
    if TRACING.provider is not None:
        TRACING.provider.shutdown()
    TRACING.on, TRACING.service, TRACING.tracer, TRACING.provider = False, None, None, None


def _kind(kind: Kind) -> Any:
    from opentelemetry.trace import SpanKind

    return getattr(SpanKind, kind.upper())


def context_of(carrier: Mapping[str, Any] | None) -> Any:
    """The trace context a header map or a pushed payload carries (None: the current one)."""
    if not carrier or TRACEPARENT not in carrier:
        return None
    from opentelemetry.propagate import extract

    return extract({k: str(carrier[k]) for k in (TRACEPARENT, TRACESTATE) if k in carrier})


def span(
    name: str,
    *,
    parent: Mapping[str, Any] | None = None,
    kind: Kind = "internal",
    attributes: Mapping[str, Any] | None = None,
) -> contextlib.AbstractContextManager[Any]:
    """A span around a block, current inside it; its parent is ``parent``'s trace context
    (``traceparent`` of headers or a payload) or the current span. A no-op when off."""
    if not TRACING.on:
        return _NOOP
    return TRACING.tracer.start_as_current_span(  # type: ignore[no-any-return]
        name, context=context_of(parent), kind=_kind(kind), attributes=dict(attributes or {})
    )


def start(name: str, *, parent: Mapping[str, Any] | None = None, kind: Kind = "internal") -> Any:
    """A span that is not made current (end it with ``.end()``); None when off."""
    if not TRACING.on:
        return None
    return TRACING.tracer.start_span(name, context=context_of(parent), kind=_kind(kind))


@contextlib.contextmanager
def current(span_: Any) -> Iterator[None]:
    """Make a started span current for a block."""
    from opentelemetry import trace

    with trace.use_span(span_, end_on_exit=False):
        yield


def inject(carrier: MutableMapping[str, Any], of: Any = None) -> None:
    """Write the current trace context (or ``of``'s, a span) into ``carrier``; off: nothing."""
    if not TRACING.on:
        return
    from opentelemetry import trace
    from opentelemetry.propagate import inject as otel_inject

    otel_inject(carrier, context=trace.set_span_in_context(of) if of is not None else None)


def trace_id() -> str | None:
    """The current trace's id (32 hex digits), or None (off, or no span)."""
    if not TRACING.on:
        return None
    from opentelemetry import trace

    ctx = trace.get_current_span().get_span_context()
    return format(ctx.trace_id, "032x") if ctx.is_valid else None


def route_name(method: str, path: str) -> str:
    """A span name for a request: ids in the path stand as ``{id}`` (few distinct names)."""
    return f"{method} {_ID.sub('/{id}', path)}"
