"""An OTLP/HTTP trace receiver on loopback, for tests: what the OpenTelemetry SDK exports
(``POST /v1/traces``, protobuf ``ExportTraceServiceRequest``) is decoded and kept as spans.

    with OtlpReceiver() as receiver:      # receiver.endpoint -> OTEL_EXPORTER_OTLP_ENDPOINT
        ...
        spans = receiver.wait_for(lambda spans: ..., within=10)
        print(receiver.tree(trace_id))
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}


@dataclass(frozen=True)
class Span:
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    service: str
    kind: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]

    @property
    def ms(self) -> float:
        return (self.end_ns - self.start_ns) / 1e6


def _value(v: Any) -> Any:
    which = v.WhichOneof("value")
    return getattr(v, which) if which else None


def decode(body: bytes) -> list[Span]:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    out = []
    for rs in request.resource_spans:
        resource = {a.key: _value(a.value) for a in rs.resource.attributes}
        for ss in rs.scope_spans:
            for s in ss.spans:
                out.append(
                    Span(
                        trace_id=s.trace_id.hex(),
                        span_id=s.span_id.hex(),
                        parent_id=s.parent_span_id.hex(),
                        name=s.name,
                        service=str(resource.get("service.name", "")),
                        kind=KINDS.get(s.kind, str(s.kind)),
                        start_ns=s.start_time_unix_nano,
                        end_ns=s.end_time_unix_nano,
                        attributes={a.key: _value(a.value) for a in s.attributes},
                    )
                )
    return out


class OtlpReceiver:
    """A ``ThreadingHTTPServer`` on ``127.0.0.1:0`` collecting exported spans."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                if self.headers.get("content-encoding") == "gzip":
                    body = gzip.decompress(body)
                if self.path.rstrip("/") == "/v1/traces":
                    with receiver._lock:
                        receiver.spans.extend(decode(body))
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self, service: str | None = None) -> dict[str, str]:
        """The variables a child needs to export here, quickly; tracing switched on even
        where the environment turned the OpenTelemetry SDK off (a framework's conftest, a
        module imported while collecting, may set ``OTEL_SDK_DISABLED``)."""
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": self.endpoint,
            "OTEL_BSP_SCHEDULE_DELAY": "100",
            "OTEL_SDK_DISABLED": "false",
            "OTEL_TRACES_EXPORTER": "otlp",
        }
        if service:
            env["OTEL_SERVICE_NAME"] = service
        return env

    def __enter__(self) -> OtlpReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()

    def snapshot(self) -> list[Span]:
        with self._lock:
            return list(self.spans)

    def wait_for(self, done: Callable[[list[Span]], bool], within: float = 15.0) -> list[Span]:
        deadline = time.monotonic() + within
        while True:
            spans = self.snapshot()
            if done(spans):
                return spans
            if time.monotonic() > deadline:
                names = sorted({f"{s.service}:{s.name}" for s in spans})
                raise AssertionError(f"spans never arrived; have {len(spans)}: {names}")
            time.sleep(0.1)

    def tree(self, trace_id: str) -> str:
        """The trace as an indented tree: service, kind, name, duration."""
        spans = sorted(
            (s for s in self.snapshot() if s.trace_id == trace_id), key=lambda s: s.start_ns
        )
        ids = {s.span_id for s in spans}
        children: dict[str, list[Span]] = {}
        for s in spans:
            children.setdefault(s.parent_id if s.parent_id in ids else "", []).append(s)
        lines: list[str] = []

        def walk(parent: str, depth: int) -> None:
            for s in children.get(parent, []):
                lines.append(f"{'  ' * depth}{s.name}  [{s.service}, {s.kind}, {s.ms:.1f} ms]")
                walk(s.span_id, depth + 1)

        walk("", 0)
        return "\n".join(lines)
