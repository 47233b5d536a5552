"""Fake model endpoints: OpenAI Chat Completions, OpenAI Responses (as the Codex CLI speaks it),
Anthropic Messages and the Gemini API (``generateContent``), scripted per test.

How it works: docs/internals/sdk.md, "Fake model endpoints".

One plain ASGI app: in-process through an ``ASGITransport``, or served on loopback.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _anthropic_wire, _gemini_wire, _openai_wire, _responses_wire
from ._embedding_wire import embeddings
from ._model_script import (
    OFFLINE_MODEL_LABEL,
    ChatEntry,
    Failure,
    FakeModel,
    ModelRequest,
    Outcome,
    Policy,
    Reply,
    ToolCall,
    default_policy,
)

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic
    from google.genai import Client as GeminiClient
    from openai import AsyncOpenAI

__all__ = [
    "OFFLINE_MODEL_LABEL",
    "ChatEntry",
    "Failure",
    "FakeModel",
    "FakeModelApp",
    "FakeModelServer",
    "ModelRequest",
    "Outcome",
    "Policy",
    "Reply",
    "ToolCall",
    "anthropic_client",
    "default_policy",
    "fake_anthropic_server",
    "fake_gemini_server",
    "fake_openai_server",
    "gemini_client",
    "offline_openai_client",
    "openai_client",
    "serve_asgi",
    "serve_fake_models",
]

log = logging.getLogger("band.testing.fake_models")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_FAKE_ORIGIN = "http://fake-models.test"


class FakeModelApp:
    """The ASGI app serving ``fake`` at ``/v1/chat/completions``, ``/v1/responses``,
    ``/v1/messages`` and ``/v1beta/models/<model>:generateContent`` (and
    ``:streamGenerateContent``), and hashed vectors at ``/v1/embeddings``.

    The ``/v1`` prefix is optional, so a base URL with or without it works.
    """

    def __init__(self, fake: FakeModel) -> None:
        self.fake = fake

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        method: str = scope["method"]
        if method == "POST" and path.rstrip("/").endswith("/embeddings"):
            await _json(send, *embeddings(json.loads(await _read_body(receive) or b"{}")))
            return
        if method == "GET" and path.rstrip("/").endswith("/models"):
            await _json(send, 200, {"object": "list", "data": [_model_entry("fake-model")]})
            return
        if path.rstrip("/").endswith("/chat/completions"):
            wire: Any = _openai_wire
        elif path.rstrip("/").endswith("/responses"):
            wire = _responses_wire
        elif path.rstrip("/").endswith("/messages"):
            wire = _anthropic_wire
        elif _gemini_wire.is_gemini_path(path):
            wire = _gemini_wire
        else:
            await _json(send, 404, {"error": {"message": f"no route {method} {path}"}})
            return
        if method != "POST":
            await _json(send, 405, {"error": {"message": "use POST"}})
            return
        raw = await _read_body(receive)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            failure = Failure(400, "request body must be a JSON object")
            await _json(send, 400, wire.error_body(failure))
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        request: ModelRequest = wire.parse_request(path, headers, body)
        outcome = self.fake.answer(request)
        if outcome.delay > 0:
            await asyncio.sleep(outcome.delay)
        if isinstance(outcome, Failure):
            await _json(send, outcome.status, wire.error_body(outcome))
        elif request.stream:
            await _stream(send, wire.stream_events(self.fake, request, outcome))
        elif wire is _openai_wire:
            await _json(send, 200, _openai_wire.completion(self.fake, request, outcome))
        elif wire is _responses_wire:
            await _json(send, 200, _responses_wire.response(self.fake, request, outcome))
        elif wire is _gemini_wire:
            await _json(send, 200, _gemini_wire.response(self.fake, request, outcome))
        else:
            await _json(send, 200, _anthropic_wire.message(self.fake, request, outcome))


def _model_entry(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "band-testing"}


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


async def _json(send: Send, status: int, payload: dict[str, Any]) -> None:
    data = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


async def _stream(send: Send, events: Iterator[bytes]) -> None:
    headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    for event in events:
        await send({"type": "http.response.body", "body": event, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


# -- loopback server -------------------------------------------------------------------------


@dataclass(frozen=True)
class FakeModelServer:
    """A running loopback server; ``url`` is its origin, e.g. ``http://127.0.0.1:50123``."""

    url: str
    fake: FakeModel

    @property
    def openai_base_url(self) -> str:
        """Base URL for OpenAI clients (they append ``/chat/completions``)."""
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """Base URL for Anthropic clients (they append ``/v1/messages``)."""
        return self.url

    @property
    def gemini_base_url(self) -> str:
        """Base URL for google-genai (``HttpOptions(base_url=...)`` or
        ``GOOGLE_GEMINI_BASE_URL``; it appends ``/v1beta/models/<model>:generateContent``)."""
        return self.url


@contextmanager
def serve_asgi(app: Any, name: str = "fake-models") -> Iterator[str]:
    """Serve an ASGI ``app`` with uvicorn on a free loopback port, in a background thread;
    yield its origin. Works from sync and async tests alike (the server has its own loop).
    """
    try:
        import uvicorn
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("serving fake models needs uvicorn: pip install uvicorn") from exc
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=name, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError(f"the {name} server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextmanager
def serve_fake_models(fake: FakeModel | None = None) -> Iterator[FakeModelServer]:
    """Serve ``fake`` with uvicorn on a free loopback port, in a background thread."""
    fake = fake or FakeModel()
    with serve_asgi(FakeModelApp(fake)) as url:
        yield FakeModelServer(url, fake)


@contextmanager
def fake_openai_server(fake: FakeModel | None = None) -> Iterator[str]:
    """Serve ``fake`` on loopback and yield an OpenAI ``base_url`` (ending in ``/v1``)."""
    with serve_fake_models(fake) as server:
        yield server.openai_base_url


@contextmanager
def fake_anthropic_server(fake: FakeModel | None = None) -> Iterator[str]:
    """Serve ``fake`` on loopback and yield an Anthropic ``base_url``."""
    with serve_fake_models(fake) as server:
        yield server.anthropic_base_url


@contextmanager
def fake_gemini_server(fake: FakeModel | None = None) -> Iterator[str]:
    """Serve ``fake`` on loopback and yield a Gemini ``base_url`` (for
    ``GOOGLE_GEMINI_BASE_URL``)."""
    with serve_fake_models(fake) as server:
        yield server.gemini_base_url


# -- in-process clients ----------------------------------------------------------------------


def _http_module(sdk: str) -> Any:
    """The HTTP library a provider SDK is built on (``httpx2`` in newer releases, else httpx)."""
    base = importlib.import_module(f"{sdk}._base_client")
    return getattr(base, "httpx2", None) or base.httpx


def _asgi_http_client(sdk: str, fake: FakeModel, base_url: str) -> Any:
    http = _http_module(sdk)
    return http.AsyncClient(transport=http.ASGITransport(app=FakeModelApp(fake)), base_url=base_url)


def openai_client(fake: FakeModel, *, max_retries: int = 0, **kwargs: Any) -> AsyncOpenAI:
    """A real ``AsyncOpenAI`` whose requests reach ``fake`` in-process (no socket)."""
    try:
        from openai import AsyncOpenAI
    except ImportError as exc:
        raise ImportError("openai_client needs the openai package: pip install openai") from exc
    base_url = f"{_FAKE_ORIGIN}/v1"
    return AsyncOpenAI(
        api_key=kwargs.pop("api_key", "fake"),
        base_url=base_url,
        max_retries=max_retries,
        http_client=_asgi_http_client("openai", fake, base_url),
        **kwargs,
    )


def anthropic_client(fake: FakeModel, *, max_retries: int = 0, **kwargs: Any) -> AsyncAnthropic:
    """A real ``AsyncAnthropic`` whose requests reach ``fake`` in-process (no socket)."""
    try:
        from anthropic import AsyncAnthropic
    except ImportError as exc:
        raise ImportError(
            "anthropic_client needs the anthropic package: pip install anthropic"
        ) from exc
    return AsyncAnthropic(
        api_key=kwargs.pop("api_key", "fake"),
        base_url=_FAKE_ORIGIN,
        max_retries=max_retries,
        http_client=_asgi_http_client("anthropic", fake, _FAKE_ORIGIN),
        **kwargs,
    )


def gemini_client(fake: FakeModel, **kwargs: Any) -> GeminiClient:
    """A real ``google.genai.Client`` whose requests reach ``fake`` in-process (no socket).

    Its async side (``client.aio``) uses an httpx client on the fake app; the sync side is
    not wired (use :func:`fake_gemini_server` for sync code). google-genai retries nothing
    unless ``http_options.retry_options`` asks it to.
    """
    try:
        import httpx
        from google import genai
        from google.genai import types
    except ImportError as exc:
        raise ImportError(
            "gemini_client needs the google-genai package: pip install google-genai"
        ) from exc
    transport = httpx.ASGITransport(app=FakeModelApp(fake))
    options = types.HttpOptions(
        base_url=_FAKE_ORIGIN,
        httpx_async_client=httpx.AsyncClient(transport=transport, base_url=_FAKE_ORIGIN),
    )
    return genai.Client(api_key=kwargs.pop("api_key", "fake"), http_options=options, **kwargs)


def offline_openai_client(fake: FakeModel | None = None) -> AsyncOpenAI:
    """The offline scripted model behind a real ``AsyncOpenAI``: no key, no network.

    Used by demo agents when ``OPENAI_API_KEY`` is absent; answers with
    :func:`default_policy` unless ``fake`` scripts otherwise.
    """
    log.info("using the %s (no network, no API key)", OFFLINE_MODEL_LABEL)
    return openai_client(fake or FakeModel())
