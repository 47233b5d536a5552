"""What an HTTP request crosses: the platform's layers in front of FastAPI's stack, the fast
lane's answers, and the server options (docs/decisions.md, "The stack outside the database")."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from types import MethodType
from typing import Any

import httpx
import pytest
from agent_testkit import make_room
from fastapi import FastAPI
from hypothesis import given, settings
from hypothesis import strategies as st
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from band_server.app import BandApp, api_lanes
from band_server.context import Platform
from band_server.http import body_limit, fast_lane, json_body
from band_server.http.fast_lane import FastLane
from band_server.http.front import Front, bound_call, with_nosniff
from band_server.http.idempotency import IdempotencyMiddleware
from band_server.http.raw_headers import header, index
from band_server.observability import (
    _BATCH_BUCKETS,
    _LATENCY_BUCKETS,
    LoopHistogram,
    Metrics,
    RequestStats,
)
from band_server.server_stack import uvicorn_options
from band_server.store.group_commit import InFlight
from band_server.ws_protocol import HeldSocketProtocol
from conftest import Seeded, make_agent


def test_the_server_speaks_websockets_through_the_sans_io_websockets_implementation() -> None:
    # ~9 us less CPU per pushed frame than wsproto's pure-Python framing, for ~2 KiB more
    # memory per socket (docs/decisions.md); lightened for held sockets (ws_protocol).
    ws = uvicorn_options()["ws"]
    assert ws is HeldSocketProtocol and issubclass(ws, WebSocketsSansIOProtocol)


async def test_a_lane_request_never_enters_fastapis_stack(
    app: FastAPI, client: httpx.AsyncClient, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered: list[str] = []
    fastapis = FastAPI.__call__

    async def counted(self: FastAPI, scope: Any, receive: Any, send: Any) -> None:
        entered.append(scope["path"])
        await fastapis(self, scope, receive, send)

    monkeypatch.setattr(FastAPI, "__call__", counted)
    assert isinstance(app, BandApp)
    me = await client.get("/api/v1/agent/me", headers={"x-api-key": seeded.agent_key})
    assert me.status_code == 200, me.text
    assert entered == []
    # What the lane hands on (a query string here) goes through FastAPI as before.
    chats = await client.get("/api/v1/agent/chats?limit=5", headers={"x-api-key": seeded.agent_key})
    assert chats.status_code == 200, chats.text
    assert entered == ["/api/v1/agent/chats"]


async def test_a_crash_in_our_layers_is_answered_in_the_envelope(
    app: FastAPI, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Starlette's error middleware no longer sits outside the fast lane: the guard does."""

    def crash(*args: Any) -> None:
        raise RuntimeError("a bug in the lane")

    monkeypatch.setattr(FastLane, "_match", crash)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
        r = await c.get("/api/v1/agent/me", headers={"x-api-key": seeded.agent_key})
    assert r.status_code == 500
    error = r.json()["error"]
    assert error["code"] == "internal_error"
    assert error["message"] and error["request_id"]
    # ... and the crash is still raised for the server to log.
    raising = httpx.ASGITransport(app=app, raise_app_exceptions=True)
    async with httpx.AsyncClient(transport=raising, base_url="http://band.test") as c:
        with pytest.raises(RuntimeError, match="a bug in the lane"):
            await c.get("/api/v1/agent/me", headers={"x-api-key": seeded.agent_key})


def test_a_layer_hands_on_to_a_bound_call() -> None:
    """``bound_call``: an instance of a class with a Python ``__call__`` is called through
    that method bound (no call slot a layer); anything else as it is. Front and the
    idempotency layer hand each request on so."""

    class Layer:
        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            return None

    async def plain(scope: Scope, receive: Receive, send: Send) -> None:
        return None

    layer = Layer()
    bound = bound_call(layer)
    assert isinstance(bound, MethodType) and bound.__self__ is layer
    assert bound.__func__ is Layer.__call__
    assert bound_call(plain) is plain and bound_call(bound) is bound
    lane = FastLane(app_stub, lanes=api_lanes())
    idem = IdempotencyMiddleware(lane)
    front = Front(idem, Metrics(), InFlight())
    assert front._inner == idem.__call__ and idem._inner == lane.__call__


async def test_one_layer_times_limits_and_guards_before_idempotency(
    app: FastAPI, seeded: Seeded, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Metrics, the body limit and the guard are one layer (two coroutine frames and two
    wrapped sends a request fewer); what each of them answers is still counted."""
    assert isinstance(app, BandApp)
    assert isinstance(app.http_stack, Front)
    assert isinstance(app.http_stack.app, IdempotencyMiddleware)

    def crash(*args: Any) -> None:
        raise RuntimeError("a bug in the lane")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://band.test") as c:
        huge = b'{"event": {"content": "' + b"x" * (1 << 20) + b'"}}'
        headers = {"x-api-key": seeded.agent_key, "content-type": "application/json"}
        r = await c.post("/api/v1/agent/chats/x/events", content=huge, headers=headers)
        assert r.status_code == 413 and r.json()["error"]["code"] == "payload_too_large"
        monkeypatch.setattr(FastLane, "_match", crash)
        r = await c.get("/api/v1/agent/me", headers={"x-api-key": seeded.agent_key})
        assert r.status_code == 500 and r.json()["error"]["code"] == "internal_error"
        monkeypatch.undo()
        text = (await c.get("/metrics")).text.splitlines()
    assert 'band_http_requests_total{method="POST",route="unmatched",status="413"} 1.0' in text
    assert 'band_http_requests_total{method="GET",route="unmatched",status="500"} 1.0' in text


async def test_a_keyed_requests_body_is_read_and_decoded_once(
    app: FastAPI,
    client: httpx.AsyncClient,
    platform: Platform,
    seeded: Seeded,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lane takes the body the idempotency layer buffered (and decoded for its hash); what
    it hands on to FastAPI still gets the body, replayed."""
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    reads: list[str] = []
    decodes: list[str] = []
    serving, scanning = FastLane.__call__, json_body._DECODER.scan_once

    async def counted_lane(lane: FastLane, scope: Any, receive: Any, send: Any) -> None:
        async def counted_receive() -> Message:
            message: Message = await receive()
            if message["type"] == "http.request" and not message.get("more_body", False):
                reads.append("read")  # a body read to its end by the lane (or what it hands on)
            return message

        await serving(lane, scope, counted_receive, send)

    def counted_scan(text: str, at: int) -> Any:
        if at == 0:  # a body's value (its parts are scanned inside, not through this)
            decodes.append(text)
        return scanning(text, at)

    monkeypatch.setattr(FastLane, "__call__", counted_lane)
    # The idempotency layer holds the lane's ``__call__`` bound when it was made
    # (``front.bound_call``): it is given the counted one.
    assert isinstance(app, BandApp) and isinstance(app.http_stack, Front)
    layer = app.http_stack.app
    monkeypatch.setattr(layer, "_inner", bound_call(layer.app))  # type: ignore[attr-defined]
    monkeypatch.setattr(json_body._DECODER, "scan_once", counted_scan)
    url = f"/api/v1/agent/chats/{room}/events"
    event = {"event": {"content": "thinking", "message_type": "thought"}}
    keyed = {"x-api-key": seeded.agent_key, "Idempotency-Key": "k-1"}
    r = await client.post(url, json=event, headers=keyed)
    assert reads == [] and len(decodes) == 1
    assert r.status_code == 201 and r.json()["data"]["id"], r.text
    again = await client.post(url, json=event, headers=keyed)
    assert again.json() == r.json() and again.headers["idempotent-replayed"] == "true"
    # Refused by the lane's model: FastAPI reads the replayed body and answers as it always did.
    bad = {"event": {"content": "thinking", "message_type": "no such type"}}
    r = await client.post(url, json=bad, headers={**keyed, "Idempotency-Key": "k-2"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error", r.text
    assert "/event/message_type" in r.json()["error"]["details"], r.text
    reads.clear()
    r = await client.post(url, json=event, headers={"x-api-key": seeded.agent_key})
    assert r.status_code == 201 and reads == ["read"], r.text


def test_the_lane_matches_as_trying_every_route_would(app: FastAPI) -> None:
    """Routes are tried by the path's shape (segments, last segment); the answer is the one
    trying every route's pattern gives: the one route that matches, or none when two do."""
    assert isinstance(app, BandApp)
    lane = app.http_stack
    while not isinstance(lane, FastLane):
        lane = lane.app  # type: ignore[union-attr]
    groups = [
        (*c.literal.values(), *c.wildcard.values(), c.anywhere) for c in lane._by_method.values()
    ]
    lanes = list({id(ln): ln for method in groups for group in method for ln in group}.values())

    def every_route(method: str, path: str) -> tuple[Any, dict[str, str]]:
        hits = [
            (ln, m.groupdict())
            for ln in lanes
            if method in (ln.route.methods or ()) and (m := ln.pattern.match(path))
        ]
        if len(hits) != 1 or not hits[0][0].simple:
            return None, {}
        return hits[0]

    paths = {re.sub(r"\{[^}]+\}", "x1", ln.template) for ln in lanes}
    paths |= {p + "/" for p in paths} | {p.rsplit("/", 1)[0] + "/events" for p in paths}
    paths |= {"/api/v1/agent/chats/x1/tasks/events", "/api/v1/me/chats/x1/messages/next", "/"}
    assert len(paths) > 50
    for _ in range(2):  # found, then as kept
        for method in ("GET", "POST", "PUT", "PATCH", "DELETE"):
            for path in sorted(paths):
                assert lane._match(method, path) == every_route(method, path), (method, path)


def test_the_lanes_kept_matches_are_bounded() -> None:
    """Each path's match is kept (short paths only, at most ``_MATCHES``); a request's
    ``path_params`` are a copy, so nothing a route does changes the kept one."""
    lane = FastLane(app_stub, lanes=api_lanes())
    for i in range(fast_lane._MATCHES + 10):
        found, params = lane._match("POST", f"/api/v1/me/chats/r{i}/messages")
        assert found is not None and params == {"chat_id": f"r{i}"}
        assert len(lane._matched) <= fast_lane._MATCHES
    long_path = "/api/v1/me/chats/" + "r" * 300 + "/messages"
    assert lane._match("POST", long_path)[0] is not None
    assert ("POST", long_path) not in lane._matched


async def app_stub(scope: Scope, receive: Receive, send: Send) -> None:
    raise AssertionError("not called")


@pytest.mark.parametrize(
    ("status", "content"),
    [
        (200, {"data": {"working": False}}),
        (201, {"data": {"id": "x", "content": "héllo ✓ \u2028", "n": [1, 2.5, None, True]}}),
        (200, []),
    ],
)
async def test_the_lanes_answer_is_what_jsonresponse_sends(status: int, content: Any) -> None:
    expected: list[Message] = []

    async def send(message: Message) -> None:
        expected.append(message)

    sent = list(fast_lane._answer(status, content))
    scope = {"type": "http", "method": "GET", "path": "/"}
    await JSONResponse(content, status_code=status)(scope, _nothing, send)
    # As the front hands them on: it marks every answer ``nosniff`` (the lane's say it).
    for start in (sent[0], expected[0]):
        with_nosniff(start)
    assert sent == expected
    assert json.loads(sent[1]["body"]) == content


async def _nothing() -> Message:
    return {"type": "http.disconnect"}


async def test_a_lane_request_is_counted_under_its_full_route_template(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    _, agent_key, _ = await make_agent(platform, seeded.user_id, "Other")
    for key in (seeded.agent_key, agent_key):
        assert (await client.get("/api/v1/agent/me", headers={"x-api-key": key})).status_code == 200
    text = (await client.get("/metrics")).text
    line = 'band_http_requests_total{method="GET",route="/api/v1/agent/me",status="200"} 2.0'
    assert line in text.splitlines()


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ([(b"x-api-key", b"k1"), (b"content-type", b"application/json")], b"x-api-key"),
        ([(b"x-api-key", b"first"), (b"x-api-key", b"second")], b"x-api-key"),
        ([(b"content-type", b"text/plain")], b"x-api-key"),
        ([(b"x-name", "caf\u00e9".encode("latin-1"))], b"x-name"),
        ([], b"content-length"),
    ],
)
def test_a_raw_header_reads_as_starlettes_headers_get(
    raw: list[tuple[bytes, bytes]], name: bytes
) -> None:
    scope: dict[str, Any] = {"type": "http", "headers": raw}
    expected = Headers(scope=scope).get(name.decode())
    assert header(scope, name) == expected
    # Indexed by the front when no name comes twice: the same answer from the index.
    assert index(scope) is (len({k for k, _ in raw}) == len(raw))
    assert header(scope, name) == expected
    # Headers replaced after the index was made: the index is not read.
    scope["headers"] = [(name, b"other")]
    assert header(scope, name) == "other"
    assert index({"type": "http", "headers": tuple(raw)}) is False  # (a list only)


_MIB = str(body_limit.MAX_JSON_BODY).encode()


@pytest.mark.parametrize(
    ("method", "path", "headers", "read"),
    [
        ("POST", "/api/v1/me/chats/r/messages", [(b"content-length", b"12")], False),
        ("POST", "/api/v1/me/chats/r/messages", [(b"content-length", _MIB)], False),
        ("POST", "/api/v1/me/chats/r/messages", [(b"content-length", _MIB + b"0")], True),
        ("POST", "/api/v1/me/chats/r/messages", [(b"content-length", b"-1")], True),
        ("POST", "/api/v1/me/chats/r/messages", [(b"content-length", b" 12")], True),
        ("POST", "/api/v1/me/chats/r/messages", [], True),  # chunked: read to know
        ("PATCH", "/api/x", [(b"content-length", b"9"), (b"content-length", _MIB + b"0")], False),
        ("PATCH", "/api/x", [(b"content-length", _MIB + b"0"), (b"content-length", b"9")], True),
        ("PUT", "/api/v1/me/chats/r/files", [], False),  # an upload: limited by the file store
        ("PUT", "/api/v1/me/chats/r/files/", [], False),
        ("PUT", "/api/v1/me/chats/r/profile", [], True),
        ("POST", "/api/v1/me/chats/r/files", [], True),  # only a PUT is an upload
        ("GET", "/api/v1/me/chats", [], False),
        ("HEAD", "/api/v1/me/chats", [], False),
        ("OPTIONS", "/api/v1/me/chats", [], False),
        ("POST", "/auth/login", [], False),  # not the API
        ("POST", "/apix", [], False),
    ],
)
def test_the_body_limit_reads_only_a_limited_body_without_a_length_within_it(
    method: str, path: str, headers: list[tuple[bytes, bytes]], read: bool
) -> None:
    scope = {"type": "http", "method": method, "path": path, "headers": headers}
    assert body_limit.needs_reading(scope) is read


def _scraped(registry: CollectorRegistry) -> list[str]:
    """The Prometheus text, creation times aside."""
    text = generate_latest(registry).decode()
    return [re.sub(r"^(\S+_created\S*) \S+$", r"\1 T", line) for line in text.splitlines()]


def test_the_request_stats_scrape_as_prometheus_clients_own_counter_and_histogram() -> None:
    ours = CollectorRegistry(auto_describe=True)
    stats = RequestStats(ours)
    theirs = CollectorRegistry(auto_describe=True)
    counter = Counter("band_http_requests", "HTTP requests answered", ["method", "route", "status"])
    histogram = Histogram(
        "band_http_request_duration_seconds",
        "Time from the request's arrival to the end of its answer",
        ["method", "route"],
        buckets=_LATENCY_BUCKETS,
    )
    theirs.register(counter)
    theirs.register(histogram)
    seen = [
        ("GET", "/api/v1/agent/me", 200, 0.0004),
        ("GET", "/api/v1/agent/me", 200, 0.0005),  # on a bound: counted in it
        ("GET", "/api/v1/agent/me", 401, 0.0011),
        ("POST", "/api/v1/agent/chats/{chat_id}/events", 201, 0.003),
        ("POST", "/api/v1/agent/chats/{chat_id}/events", 201, 7.0),  # past the last bound
    ]
    for method, route, status, seconds in seen:
        stats.observe(method, route, status, seconds)
        counter.labels(method, route, str(status)).inc()
        histogram.labels(method, route).observe(seconds)
    assert _scraped(ours) == _scraped(theirs)


# Lags as observed (never negative), the bounds themselves and past the last one among them.
_LAGS = st.lists(
    st.sampled_from(_LATENCY_BUCKETS) | st.floats(0, 10, allow_nan=False, allow_infinity=False),
    max_size=30,
)


def _scrapes_as_the_librarys(buckets: tuple[float, ...], values: Sequence[float]) -> bool:
    """A :class:`LoopHistogram` and prometheus-client's ``Histogram`` given the same values
    scrape the same (creation times aside)."""
    name, doc = "band_histogram", "A histogram"
    ours = CollectorRegistry(auto_describe=True)
    histogram = LoopHistogram(name, doc, buckets, ours)
    theirs = CollectorRegistry(auto_describe=True)
    library = Histogram(name, doc, buckets=buckets, registry=theirs)
    for value in values:
        histogram.observe(value)
        library.observe(value)
    return _scraped(ours) == _scraped(theirs)


@settings(max_examples=200, deadline=None, database=None)
@given(lags=_LAGS)
def test_the_fanout_lag_scrapes_as_prometheus_clients_own_histogram(lags: list[float]) -> None:
    assert _scrapes_as_the_librarys(_LATENCY_BUCKETS, lags)


# Units a group commit: its bounds, between them and past the last one.
_UNITS = st.lists(st.sampled_from(_BATCH_BUCKETS) | st.integers(1, 1000), max_size=30)


@settings(max_examples=100, deadline=None, database=None)
@given(sizes=_UNITS)
def test_the_commit_batch_sizes_scrape_as_prometheus_clients_own_histogram(
    sizes: list[int],
) -> None:
    """Units a group commit, observed on the loop's thread as each batch settles."""
    assert _scrapes_as_the_librarys(_BATCH_BUCKETS, sizes)
