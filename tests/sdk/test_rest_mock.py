"""BandRestClient against a scripted transport: envelopes, retries, marks, request count."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from band.core.exceptions import BandConnectionError
from band.platform import BandRestClient, BandRestError, MarkResult

Handler = Callable[[httpx.Request], httpx.Response]


def make_client(handler: Handler) -> tuple[BandRestClient, list[httpx.Request]]:
    seen: list[httpx.Request] = []

    def record(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return handler(request)

    client = BandRestClient("http://band.test/", "key-1", transport=httpx.MockTransport(record))
    delays: list[float] = []

    async def no_sleep(delay: float) -> None:
        delays.append(delay)

    client.http.sleep = no_sleep
    return client, seen


def error(status: int, code: str, message: str, **details: list[str]) -> httpx.Response:
    body = {"error": {"code": code, "message": message, "request_id": "req-1", "details": details}}
    return httpx.Response(status, json=body)


async def test_sends_api_key_and_unwraps_data() -> None:
    me = {
        "id": "a1",
        "name": "Echo",
        "handle": "alice/echo",
        "description": "d",
        "owner_uuid": "u1",
        "feature_flags": {},
        "inserted_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }
    client, seen = make_client(lambda r: httpx.Response(200, json={"data": me}))
    agent = await client.get_me()
    assert agent.name == "Echo"
    assert seen[0].headers["X-API-Key"] == "key-1"
    assert seen[0].url.path == "/api/v1/agent/me"
    assert client.request_count == 1


async def test_error_envelope_becomes_band_rest_error() -> None:
    client, _ = make_client(lambda r: error(404, "not_found", "no such room"))
    with pytest.raises(BandRestError) as info:
        await client.get_chat("r1")
    assert (info.value.status, info.value.code, info.value.request_id) == (
        404,
        "not_found",
        "req-1",
    )
    assert info.value.message == "no such room"


async def test_retries_429_then_succeeds_with_one_idempotency_key() -> None:
    answers = [
        httpx.Response(429, headers={"Retry-After": "0"}, json={}),
        httpx.Response(503),
        httpx.Response(201, json={"data": {"id": "m1", "success": True, "recipients": []}}),
    ]
    client, seen = make_client(lambda r: answers.pop(0))
    sent = await client.post_message("r1", "hi", [{"id": "u1", "handle": "alice"}])
    assert sent["id"] == "m1"
    assert client.request_count == 3
    assert len({r.headers["Idempotency-Key"] for r in seen}) == 1
    assert json.loads(seen[0].content) == {
        "message": {"content": "hi", "mentions": [{"id": "u1", "handle": "alice"}]}
    }


async def test_retries_are_bounded() -> None:
    client, seen = make_client(lambda r: httpx.Response(500, text="boom"))
    with pytest.raises(BandRestError) as info:
        await client.get_participants("r1")
    assert info.value.status == 500
    assert len(seen) == 4


async def test_connection_errors_raise_band_connection_error() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client, seen = make_client(refuse)
    client.http.outage_window = 0
    with pytest.raises(BandConnectionError):
        await client.get_participants("r1")
    assert len(seen) == 4


async def test_an_outage_is_waited_out_with_one_idempotency_key() -> None:
    calls = 0

    def down_then_up(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if calls <= 8:
            raise httpx.ConnectError("refused", request=request)
        return httpx.Response(201, json={"data": {"id": "m1", "success": True, "recipients": []}})

    client, seen = make_client(down_then_up)
    sent = await client.post_message("r1", "hi", [{"id": "u1", "handle": "alice"}])
    assert sent["id"] == "m1"
    assert len(seen) == 9
    assert len({r.headers["idempotency-key"] for r in seen}) == 1


async def test_an_outage_longer_than_the_window_gives_up() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    client, seen = make_client(refuse)
    client.http.outage_window = 12
    with pytest.raises(BandConnectionError):
        await client.get_participants("r1")
    assert 4 < len(seen) < 12


async def test_next_204_is_none() -> None:
    client, _ = make_client(lambda r: httpx.Response(204))
    assert await client.get_next("r1") is None


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (
            httpx.Response(
                200, json={"data": {"id": "m", "status": "processing", "attempt_number": 1}}
            ),
            MarkResult.OK,
        ),
        (httpx.Response(204), MarkResult.STOPPED),
        (error(404, "not_found", "gone"), MarkResult.NOT_FOUND),
        (
            error(422, "validation_error", "bad", **{"/processing_attempt": ["none"]}),
            MarkResult.REJECTED,
        ),
        (error(422, "validation_error", "bad"), MarkResult.UNCONFIRMED),
        (httpx.Response(201, json={"data": {"success": True}}), MarkResult.UNCONFIRMED),
        (httpx.Response(200, json={"data": {"success": False}}), MarkResult.UNCONFIRMED),
    ],
)
async def test_mark_classification(response: httpx.Response, expected: MarkResult) -> None:
    client, _ = make_client(lambda r: response)
    assert await client.mark_processing("r1", "m1") is expected


async def test_mark_failed_sends_trimmed_error_or_unknown() -> None:
    ok = {"data": {"id": "m", "status": "failed", "attempt_number": 1, "success": True}}
    client, seen = make_client(lambda r: httpx.Response(200, json=ok))
    await client.mark_failed("r1", "m1", "  ")
    await client.mark_failed("r1", "m1", " boom ")
    assert [json.loads(r.content) for r in seen] == [{"error": "Unknown error"}, {"error": "boom"}]
    assert seen[0].url.path == "/api/v1/agent/chats/r1/messages/m1/failed"


async def test_send_activity_never_raises_and_does_not_retry() -> None:
    client, seen = make_client(lambda r: httpx.Response(500))
    assert await client.send_activity("r1", True) is None
    assert len(seen) == 1
    client, _ = make_client(lambda r: httpx.Response(200, json={"data": {"working": False}}))
    assert await client.send_activity("r1", True) is False


async def test_post_event_sends_explicit_null_metadata() -> None:
    answer = {"data": {"id": "e1", "message_type": "thought", "success": True}}
    client, seen = make_client(lambda r: httpx.Response(201, json=answer))
    await client.post_event("r1", "hmm", "thought")
    assert json.loads(seen[0].content) == {
        "event": {"content": "hmm", "message_type": "thought", "metadata": None}
    }


async def test_none_query_params_are_omitted() -> None:
    client, seen = make_client(lambda r: httpx.Response(200, json={"data": [], "metadata": {}}))
    await client.get_context("r1", limit=10)
    assert str(seen[0].url) == "http://band.test/api/v1/agent/chats/r1/context?limit=10"
