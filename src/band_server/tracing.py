"""The platform's part of a turn's trace (``band_protocol.tracing`` holds the rules).

How it works: docs/internals/server.md, "Tracing a turn on the server".

When tracing is off, none of it is installed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from band_protocol import tracing

from .fanout.bus import Broadcast, Bus, Deliver

__all__ = ["TracedBus", "TracedHttp", "traced_delivery"]

TRACED_EVENTS = frozenset({"message_created"})
_TRACE_HEADERS = (b"traceparent", b"tracestate")


class TracedHttp:
    """A server span around each HTTP request (the outermost layer of the stack)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        carrier = {
            k.decode("latin-1"): v.decode("latin-1")
            for k, v in scope["headers"]
            if k in _TRACE_HEADERS
        }
        method, path = scope["method"], scope["path"]
        attributes = {"http.request.method": method, "url.path": path}
        with tracing.span(
            tracing.route_name(method, path), parent=carrier, kind="server", attributes=attributes
        ) as span:

            async def sending(message: Message) -> None:
                if message["type"] == "http.response.start":
                    span.set_attribute("http.response.status_code", message["status"])
                    if message["status"] >= 500:
                        from opentelemetry.trace import StatusCode

                        span.set_status(StatusCode.ERROR)
                await send(message)

            await self.app(scope, receive, sending)


class TracedBus:
    """The node's bus, stamping each traced broadcast with the publisher's trace context."""

    def __init__(self, bus: Bus) -> None:
        self.inner = bus

    async def publish(self, broadcast: Broadcast) -> None:
        if broadcast.event in TRACED_EVENTS:
            carrier: dict[str, str] = {}
            tracing.inject(carrier)
            if carrier:
                b = broadcast
                broadcast = Broadcast(
                    b.topic,
                    b.event,
                    b.payload,
                    b.agents,
                    b.users,
                    b.exclude_conn,
                    {**b.meta, "trace": carrier},
                    b.published_at,
                )
        await self.inner.publish(broadcast)

    async def start(self, deliver: Deliver) -> None:
        await self.inner.start(deliver)

    async def follow(self, topic: str) -> None:
        await self.inner.follow(topic)

    def forget(self, topic: str) -> None:
        self.inner.forget(topic)

    async def stop(self) -> None:
        await self.inner.stop()

    async def health(self) -> str | None:
        return await self.inner.health()


def traced_delivery(deliver: Deliver) -> Callable[[Broadcast], Awaitable[None]]:
    """``deliver`` with a ``push`` span per traced broadcast, its context in the payload."""

    async def delivering(b: Broadcast) -> None:
        carrier = b.meta.get("trace")
        if not isinstance(carrier, dict):
            await deliver(b)
            return
        span = tracing.start(f"push {b.event}", parent=carrier, kind="producer")
        span.set_attribute("band.topic", b.topic)
        pushed: dict[str, Any] = dict(b.payload)
        tracing.inject(pushed, of=span)
        meta = {k: v for k, v in b.meta.items() if k != "trace"}
        try:
            with tracing.current(span):
                await deliver(
                    Broadcast(
                        b.topic,
                        b.event,
                        pushed,
                        b.agents,
                        b.users,
                        b.exclude_conn,
                        meta,
                        b.published_at,
                    )
                )
        finally:
            span.end()

    return delivering
