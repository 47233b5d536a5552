"""band.integrations.opencode.client: the HTTP calls ``HttpOpencodeClient`` makes (through
httpx's mock transport) and its reading of the ``/event`` SSE stream."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from band.integrations.opencode import HttpOpencodeClient

Seen = list[tuple[str, str, dict[str, str], Any, dict[str, str]]]


def client(seen: Seen, events: str = "", **options: Any) -> HttpOpencodeClient:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else None
        params = dict(request.url.params)
        seen.append((request.method, request.url.path, params, body, dict(request.headers)))
        if request.url.path == "/global/health":
            return httpx.Response(200, json={"healthy": True, "version": "1.2.3"})
        if request.url.path == "/session" and request.method == "POST":
            return httpx.Response(200, json={"id": "ses_1"})
        if request.url.path == "/session/gone":
            return httpx.Response(404, json={})
        if request.url.path == "/mcp":
            return httpx.Response(200, json={body["name"]: {"status": "connected"}})
        if request.url.path == "/event":
            return httpx.Response(200, text=events, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=True)

    return HttpOpencodeClient(
        base_url="http://opencode.test/", transport=httpx.MockTransport(answer), **options
    )


async def test_requests_carry_the_folder_and_workspace() -> None:
    seen: Seen = []
    oc = client(seen, directory="/work/prøject", workspace="ws")
    await oc.health()
    assert oc.version == "1.2.3"
    assert await oc.create_session(title="Band room") == {"id": "ses_1"}
    method, path, params, body, headers = seen[-1]
    assert (method, path, body) == ("POST", "/session", {"title": "Band room"})
    assert params == {"directory": "/work/prøject", "workspace": "ws"}
    assert headers["x-opencode-directory"] == "/work/pr%C3%B8ject"  # headers are ASCII
    assert headers["x-opencode-workspace"] == "ws"
    await oc.close()


async def test_prompts_replies_and_mcp_send_what_opencode_reads() -> None:
    seen: Seen = []
    oc = client(seen)
    await oc.prompt_async("s", parts=[{"type": "text", "text": "hi"}], agent="build", tools={})
    assert seen[-1][1:4:2] == (
        "/session/s/prompt_async",
        {"parts": [{"type": "text", "text": "hi"}], "agent": "build"},
    )
    await oc.reply_permission("p", reply="reject", message="no")
    assert seen[-1][3] == {"reply": "reject", "message": "no"}
    await oc.reply_permission("p", reply="once")
    assert seen[-1][3] == {"reply": "once"}
    await oc.reply_question("q", answers=[["blue"]])
    assert seen[-1][1:4:2] == ("/question/q/reply", {"answers": [["blue"]]})
    answer = await oc.register_mcp_server(name="band_x", url="http://127.0.0.1:1/mcp")
    assert answer == {"band_x": {"status": "connected"}}
    assert seen[-1][3]["config"] == {"type": "remote", "url": "http://127.0.0.1:1/mcp"}
    await oc.disconnect_mcp_server("band_x")
    await oc.abort_session("s")
    assert [s[1] for s in seen[-2:]] == ["/mcp/band_x/disconnect", "/session/s/abort"]
    with pytest.raises(httpx.HTTPStatusError):
        await oc.get_session("gone")
    await oc.close()


async def test_the_event_stream_yields_json_events_and_resumes_after_the_last_id() -> None:
    seen: Seen = []
    stream = (
        'id: 1\ndata: {"type": "session.idle", "properties": {}}\n\n'
        ": a comment\n\n"
        "data: not json\n\n"
        'event: message.updated\nid: 2\ndata: {"properties":\ndata: {}}\n\n'
        "data: [1, 2]\n\n"
    )
    oc = client(seen, stream)
    events = [event async for event in oc.iter_events()]
    assert events == [
        {"type": "session.idle", "properties": {}},
        {"type": "message.updated", "properties": {}},  # the frame's event name is its type
    ]
    [event async for event in oc.iter_events()]
    assert seen[-1][4]["last-event-id"] == "2"
    await oc.close()
