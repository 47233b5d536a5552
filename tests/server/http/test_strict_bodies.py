"""Bad bodies and ambiguous requests are refused in the envelope, alike with the fast lane
and without it, and the keep-alive connection that carried them still serves.

A body nested 50,000-100,000 levels deep once made ``json.loads`` raise ``RecursionError``
in the lane: a 500, and a connection the server then closed. Every path now decodes with
``http.json_body.decode``: 400 ``malformed_json``. ``NaN``, ``Infinity`` and ``-Infinity``
anywhere are refused the same way (stored, they broke every later read of the history), and
so is a second ``X-API-Key`` (400 ``duplicate_header``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agent_testkit import make_room
from fastapi import FastAPI
from hypothesis import given
from hypothesis import strategies as st

from band_server.config import Settings
from band_server.context import Platform
from band_server.http import json_body
from band_server.http.json_body import JsonRoute
from band_server.http.openapi import walk
from conftest import LiveServer, Seeded


@pytest.fixture(params=[True, False], ids=["lane", "routed"])
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Settings]:
    yield Settings(
        data_dir=tmp_path / "data", database_url=None, redis_url=None, fast_lane=request.param
    )


EVENT = '{"event": {"content": "x", "message_type": "thought", "metadata": {"a": @}}}'
"""An event whose ``metadata.a`` is the raw JSON put in place of ``@``."""


def _event(raw: str) -> str:
    return EVENT.replace("@", raw)


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, head: str, body: bytes
) -> tuple[int, dict[str, object]]:
    """One request on an open connection, and its status and JSON answer."""
    writer.write(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()
    status_line = await reader.readline()
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    answer = json.loads(await reader.readexactly(length)) if length else {}
    return int(status_line.split()[1]), answer


@pytest.mark.parametrize("route", ["events", "messages"])
async def test_a_deeply_nested_body_is_400_and_the_connection_still_serves(
    live_server: LiveServer, seeded: Seeded, route: str
) -> None:
    room = await make_room(live_server.platform, seeded.user_id, seeded.agent_id)
    host, port = live_server.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    me = f"GET /api/v1/agent/me HTTP/1.1\r\nHost: band.test\r\nX-API-Key: {seeded.agent_key}\r\n"
    try:
        # On one keep-alive connection: unkeyed and keyed (the idempotency layer decodes too).
        for levels, key in [(50_000, None), (100_000, None), (50_000, "deep-1"), (100_000, "d2")]:
            head = (
                f"POST /api/v1/agent/chats/{room}/{route} HTTP/1.1\r\nHost: band.test\r\n"
                f"X-API-Key: {seeded.agent_key}\r\nContent-Type: application/json\r\n"
                + (f"Idempotency-Key: {key}\r\n" if key else "")
            )
            deep = _event("[" * levels + "]" * levels).encode()
            status, answer = await _exchange(reader, writer, head, deep)
            assert status == 400, answer
            error = answer["error"]
            assert isinstance(error, dict) and error["code"] == "malformed_json", answer
            assert "nested deeper than 100 levels" in str(error["message"])
            status, answer = await _exchange(reader, writer, me, b"")  # the connection serves
            assert status == 200, answer
    finally:
        writer.close()


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e400"])
async def test_non_standard_json_numbers_are_400_anywhere_and_nothing_is_stored(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, constant: str
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    url = f"/api/v1/agent/chats/{room}/events"
    headers = {"x-api-key": seeded.agent_key, "content-type": "application/json"}
    bodies = [
        _event(constant),
        _event(f'[1, {{"b": {constant}}}]'),
        '{"event": {"content": "x", "message_type": "thought"}, "extra": ' + constant + "}",
    ]
    for body in bodies:
        r = await client.post(url, content=body, headers=headers)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed_json", r.text
        assert "JSON number" in r.json()["error"]["message"], r.text
    history = await client.get(
        f"/api/v1/me/chats/{room}/messages", headers={"x-api-key": seeded.user_key}
    )
    assert history.status_code == 200 and history.json()["data"] == [], history.text


async def test_a_lone_surrogate_is_400_even_where_any_json_is_taken(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    body = _event('"\\ud800"')
    r = await client.post(
        f"/api/v1/agent/chats/{room}/events",
        content=body,
        headers={"x-api-key": seeded.agent_key, "content-type": "application/json"},
    )
    assert r.status_code == 400 and "surrogate" in r.json()["error"]["message"], r.text
    # A pair written as escapes is one character, and welcome.
    paired = body.replace("\\ud800", "\\ud83d\\ude00")
    r = await client.post(
        f"/api/v1/agent/chats/{room}/events",
        content=paired,
        headers={"x-api-key": seeded.agent_key, "content-type": "application/json"},
    )
    assert r.status_code == 201, r.text


@pytest.mark.parametrize("name", ["X-API-Key", "Idempotency-Key", "Content-Type"])
async def test_a_header_sent_twice_is_400(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, name: str
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    values = {
        "X-API-Key": [seeded.agent_key, seeded.user_key],
        "Idempotency-Key": ["a", "b"],
        "Content-Type": ["application/json", "application/json"],
    }[name]
    headers = [("x-api-key", seeded.agent_key), ("content-type", "application/json")]
    headers = [h for h in headers if h[0] != name.lower()] + [(name, v) for v in values]
    event = {"event": {"content": "x", "message_type": "thought"}}
    r = await client.post(f"/api/v1/agent/chats/{room}/events", json=event, headers=headers)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "duplicate_header", r.text
    assert r.json()["error"]["message"].startswith(name), r.text
    history = await client.get(
        f"/api/v1/me/chats/{room}/messages", headers={"x-api-key": seeded.user_key}
    )
    assert history.json()["data"] == [], history.text


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/jsonx"])
async def test_a_body_not_sent_as_json_is_422_as_fastapi_answers(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded, content_type: str | None
) -> None:
    room = await make_room(platform, seeded.user_id, seeded.agent_id)
    headers = {"x-api-key": seeded.agent_key}
    if content_type is not None:
        headers["content-type"] = content_type
    body = json.dumps({"event": {"content": "x", "message_type": "thought"}})
    r = await client.post(f"/api/v1/agent/chats/{room}/events", content=body, headers=headers)
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error", r.text
    assert r.json()["error"]["details"] == {
        "/": ["must be JSON, sent with Content-Type: application/json"]
    }


def test_every_api_route_decodes_its_body_with_the_shared_function(app: FastAPI) -> None:
    routes = [(path, route) for path, route in walk(app.routes) if path.startswith("/api/v1/")]
    assert routes and all(isinstance(route, JsonRoute) for _, route in routes), [
        path for path, route in routes if not isinstance(route, JsonRoute)
    ]


def test_the_new_refusals_are_declared(app: FastAPI) -> None:
    doc = app.openapi()
    for path, ops in doc["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for method, op in ops.items():
            assert "400" in op["responses"], (method, path)
            schema = op["responses"]["400"]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorEnvelope"}
    assert "twice" in doc["paths"]["/api/v1/agent/me"]["get"]["responses"]["400"]["description"]


# Text with what the hint looks for: escapes of either case, lone surrogates (hypothesis's
# text leaves them out), other non-ASCII.
_PIECES = st.sampled_from(
    ["\\u", "\\ud800", "\\uDBFF", "\\uDc00", "\\ue000", "\\", "u", "d", "8", "é", chr(0xD800)]
)


@given(st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=12).map("".join))
def test_the_surrogate_hint_shortcut_agrees_with_its_regex(text: str) -> None:
    """``_may_hold_surrogate`` skips the regex for ASCII text without an escape: same answer."""
    expected = json_body._SURROGATE_HINT.search(text) is not None
    assert json_body._may_hold_surrogate(text) is expected


def _outcome(parse: Callable[[str], Any], text: str) -> tuple[str, Any]:
    try:
        return "value", parse(text)
    except Exception as exc:  # the same error, worded the same
        return type(exc).__name__, str(exc)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
# Valid bodies, bodies with something around or after them, and broken ones.
_TEXTS = st.one_of(
    _JSON.map(json.dumps),
    st.tuples(_JSON.map(json.dumps), st.sampled_from(["", " ", "\n", "}", "{}", " x", "NaN"])).map(
        lambda pair: pair[0] + pair[1]
    ),
    st.text(alphabet='{}[]":,0123456789 aeflnrstu\\', max_size=20),
    st.sampled_from(['{"a": x}', '{"a": [1, }', '{"a": NaN}', '{"a": 1e400}', "{}}", "{", '{"a"}']),
)


@given(_TEXTS)
def test_the_object_shortcut_parses_as_the_decoder(text: str) -> None:
    """``_parsed`` (an object with nothing around it scanned straight) gives what the decoder
    gives: the same value, or the same error in the same words."""
    assert _outcome(json_body._parsed, text) == _outcome(json_body._DECODER.decode, text)


@given(
    st.one_of(
        st.binary(max_size=8),
        st.binary(max_size=8).map(lambda b: b"{" + b),
        st.text(max_size=6).map(lambda t: ("{" + t).encode("utf-16-le")),
    )
)
def test_a_bodys_encoding_is_json_s(body: bytes) -> None:
    assert json_body._encoding_of(body) == json.detect_encoding(body)
