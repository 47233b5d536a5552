"""``band runtime``: the AgentCore runtime contract around ``OneShotInvoker``.

``POST /invocations`` takes one envelope and answers ``handle_event``'s result (400 with an
error body for a bad envelope, 500 when the adapter failed); ``GET /ping`` answers
``{"status": "Healthy"}`` (``HealthyBusy`` while an invocation runs). A raw ASGI app served
by uvicorn: two routes do not need a framework.
"""

from __future__ import annotations

import importlib
import json
import logging
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from band.runtime.oneshot import OneShotEnvelopeError, OneShotInvoker

__all__ = ["RuntimeApp", "load_factory"]

log = logging.getLogger("band.bridge.runtime")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
MAX_BODY = 4 * 1024 * 1024


def load_factory(spec: str) -> Callable[[], Any]:
    """``module:factory`` → the callable (a class or a function building the adapter)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"expected module:factory, got {spec!r}")
    target: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"{spec} is not callable")
    return target  # type: ignore[no-any-return]


def _error(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "request_id": uuid.uuid4().hex}}


class RuntimeApp:
    """The ASGI app: the invoker starts with the server and shuts down with it."""

    def __init__(self, invoker: OneShotInvoker) -> None:
        self.invoker = invoker
        self.busy = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        method, path = scope["method"], scope["path"]
        if path == "/ping" and method == "GET":
            status = "HealthyBusy" if self.busy else "Healthy"
            await _answer(send, 200, {"status": status})
        elif path == "/invocations" and method == "POST":
            await self._invoke(receive, send)
        elif path in ("/ping", "/invocations"):
            await _answer(send, 405, _error("method_not_allowed", f"{method} is not allowed"))
        else:
            await _answer(send, 404, _error("not_found", f"no route {path}"))

    async def _invoke(self, receive: Receive, send: Send) -> None:
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if len(body) > MAX_BODY:
                await _answer(send, 413, _error("payload_too_large", "envelope too large"))
                return
            if not message.get("more_body"):
                break
        try:
            envelope = json.loads(body or b"null")
        except ValueError:
            await _answer(send, 400, _error("invalid_json", "the body is not JSON"))
            return
        self.busy += 1
        try:
            result = await self.invoker.handle_event(envelope)
        except OneShotEnvelopeError as exc:
            await _answer(send, 400, _error("invalid_envelope", str(exc)))
            return
        except Exception as exc:
            log.exception("Invocation failed")
            await _answer(send, 500, _error("adapter_failed", str(exc)[:500]))
            return
        finally:
            self.busy -= 1
        log.info("Invocation %s: %s", envelope.get("event_type"), result.get("status"))
        await _answer(send, 200, result)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.invoker.startup()
                except Exception as exc:
                    log.exception("Runtime start-up failed")
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.invoker.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _answer(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body, default=str).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
