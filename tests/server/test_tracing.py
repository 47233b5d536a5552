"""The platform's part of a turn's trace (issue 36), on a live server in this process.

On (``OTEL_EXPORTER_OTLP_ENDPOINT`` set): a POST that carries a ``traceparent`` continues
that trace; the mention pushed to the agent's socket carries the ``traceparent`` of its push
span, whose parent is the POST's span; the message keeps the trace id for the web app. Off:
no key is added to a push and nothing to a message.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from socket_testkit import make_room, phx, seed

from band_protocol import tracing
from compat.otlp_receiver import OtlpReceiver
from conftest import LiveServer

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

CLIENT_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CLIENT_SPAN = "00f067aa0ba902b7"


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[OtlpReceiver]:
    """Tracing on for the app the test starts, exporting to a receiver here."""
    with OtlpReceiver() as receiver:
        for name, value in receiver.env("band-server").items():
            monkeypatch.setenv(name, value)
        tracing.reset()
        try:
            yield receiver
        finally:
            tracing.reset()


@pytest.fixture
async def traced_server(traced: OtlpReceiver, live_server: LiveServer) -> AsyncIterator[Any]:
    assert tracing.TRACING.on
    yield live_server


async def _mention(server: LiveServer, headers: dict[str, str]) -> tuple[list[Any], dict[str, Any]]:
    """Echo's socket on a room; alice mentions Echo; the push Echo got, the stored message."""
    s = await seed(server.platform)
    room = await make_room(server.platform, s.user_id, s.agent_id)
    async with phx(server.ws_url, s.agent_key, agent_id=s.agent_id) as echo:
        await echo.join(f"chat_room:{room}")
        async with httpx.AsyncClient(
            base_url=server.url, headers={"X-API-Key": s.user_key, **headers}
        ) as c:
            body = {"message": {"content": "trace me", "mentions": [{"id": s.agent_id}]}}
            posted = await c.post(f"/api/v1/me/chats/{room}/messages", json=body)
            assert posted.status_code == 201, posted.text
            frame = await echo.recv()
            stored = (await c.get(f"/api/v1/me/chats/{room}/messages")).json()["data"][0]
    assert frame[3] == "message_created"
    return frame, stored


async def test_a_post_continues_its_callers_trace_and_the_push_carries_it_on(
    traced_server: LiveServer, traced: OtlpReceiver
) -> None:
    header = {"traceparent": f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"}
    frame, stored = await _mention(traced_server, header)
    pushed = frame[4]
    version, trace_id, push_span, flags = pushed["traceparent"].split("-")
    assert (version, trace_id, flags) == ("00", CLIENT_TRACE, "01")
    assert stored["metadata"]["trace_id"] == CLIENT_TRACE
    tracing.shutdown()
    spans = traced.wait_for(lambda ss: any(s.name == "push message_created" for s in ss))
    post = next(s for s in spans if s.name == "POST /api/v1/me/chats/{id}/messages")
    push = next(s for s in spans if s.name == "push message_created")
    assert post.trace_id == CLIENT_TRACE and post.parent_id == CLIENT_SPAN
    assert post.attributes["http.response.status_code"] == 201
    assert push.parent_id == post.span_id and push.span_id == push_span
    commit = next(s for s in spans if s.name == "band.commit" and s.parent_id == post.span_id)
    assert commit.trace_id == CLIENT_TRACE


async def test_off_a_push_and_a_message_carry_nothing_of_tracing(live_server: LiveServer) -> None:
    assert not tracing.TRACING.on
    frame, stored = await _mention(
        live_server, {"traceparent": f"00-{CLIENT_TRACE}-{CLIENT_SPAN}-01"}
    )
    assert "traceparent" not in frame[4] and "tracestate" not in frame[4]
    assert "trace_id" not in stored["metadata"]
    with tracing.span("anything") as nothing:
        assert nothing is None
    assert tracing.start("anything") is None and tracing.trace_id() is None
    carrier: dict[str, str] = {}
    tracing.inject(carrier)
    assert carrier == {}
