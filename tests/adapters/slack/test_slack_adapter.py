"""``SlackAdapter`` against a local stand-in for Slack (``band.testing.slack.FakeSlack``).

Slack cannot run here. The stand-in serves the Web API and Socket Mode and sends events the
way Slack documents them (signed HTTP callbacks, Socket Mode envelopes), and it refuses and
records every request that breaks Slack's rules; our side is the real ``slack_sdk``. The brain
is ``OpenAIChatAdapter`` on the scripted fake model; the agent runs on the live platform.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from ..framework_support import Person, alice, require, running

require("slack_sdk", "BAND_REQUIRE_SLACK")

from runtime_support import until, until_status  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.routing import Mount  # noqa: E402

from band.adapters import OpenAIChatAdapter  # noqa: E402
from band.integrations.slack import SlackAdapter, SlackAdapterConfig, SlackApp  # noqa: E402
from band.integrations.slack.types import SlackRoomBinding  # noqa: E402
from band.integrations.uvicorn_server import ManagedUvicornServer  # noqa: E402
from band.testing import FakeModel, ModelRequest, Reply, ToolCall, openai_client  # noqa: E402
from band.testing.slack import FakeSlack  # noqa: E402

__all__ = ["alice"]
pytestmark = pytest.mark.timeout(90)


def slack_policy(request: ModelRequest) -> Reply:
    """Answers the Slack person with slack_send_message (the Band person with band_send_message)."""
    last = request.last
    if last is not None and last.role == "tool":
        return Reply(text="")
    said = (last.text if last else "").rsplit(": ", 1)[-1].split("> ", 1)[-1]
    if "slack_send_message" in request.tool_names:
        return Reply(tool_calls=(ToolCall("slack_send_message", {"content": f"You said: {said}"}),))
    return Reply(text=f"You said: {said}")


@pytest.fixture
async def slack() -> AsyncIterator[FakeSlack]:
    async with FakeSlack().running() as fake:
        yield fake
        assert fake.violations == []  # every request was one Slack would accept


def bridge(slack: FakeSlack, fake: FakeModel, transport: str = "http") -> SlackAdapter:
    app = SlackApp(
        slug="dev",
        bot_token=slack.bot_token,
        signing_secret=slack.signing_secret,
        app_token=slack.app_token,
    )
    brain = OpenAIChatAdapter("fake-model", client=openai_client(fake))
    return SlackAdapter(
        SlackAdapterConfig(apps=(app,), transport=transport),  # type: ignore[arg-type]
        inner=brain,
        web_client_factory=lambda a: slack.web_client(a.bot_token),
    )


@asynccontextmanager
async def events_endpoint(adapter: SlackAdapter) -> AsyncIterator[str]:
    """The bridge's router mounted at /slack on a loopback server; the dev app's events URL."""
    server = ManagedUvicornServer(
        Starlette(routes=[Mount("/slack", app=adapter.router)]), host="127.0.0.1", port=0
    )
    await server.start()
    try:
        yield f"http://127.0.0.1:{server.bound_port}/slack/dev/events"
    finally:
        await server.stop()


async def test_a_mention_over_http_is_answered_in_its_slack_thread(
    live_server: Any, seeded: Any, slack: FakeSlack, alice: Person
) -> None:
    fake = FakeModel(slack_policy)
    adapter = bridge(slack, fake)
    async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
        challenge = await slack.send_http_event(
            url, {"type": "url_verification", "challenge": "c-1"}
        )
        event = slack.mention("what is Band?")
        answer = await slack.send_http_event(url, slack.callback(event))
        await adapter.wait_idle()
        room_id = adapter.threads.room_of(SlackRoomBinding("dev", "CGENERAL1", event["ts"]))
        assert room_id is not None
        context = await adapter.rest.get_context(room_id)  # the agent's room, its own key
    assert challenge.status_code == 200 and challenge.text == "c-1"
    assert answer.status_code == 200
    assert slack.bot_replies("CGENERAL1", event["ts"]) == ["You said: what is Band?"]
    events = [(m["message_type"], m["content"]) for m in context[0]]
    assert ("task", "Slack thread context") in events
    assert ("thought", "Slack · Alice: <@UBOT0001> what is Band?") in events
    statuses = [c.args["status"] for c in slack.calls if c.method == "assistant.threads.setStatus"]
    assert statuses == ["is thinking…", ""]


async def test_a_bad_signature_is_refused_and_nothing_runs(
    live_server: Any, seeded: Any, slack: FakeSlack
) -> None:
    fake = FakeModel(slack_policy)
    adapter = bridge(slack, fake)
    async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
        event = slack.mention("let me in")
        answer = await slack.send_http_event(url, slack.callback(event), secret="wrong-secret")
        await adapter.wait_idle()
    assert answer.status_code == 401
    assert fake.requests == [] and slack.bot_replies("CGENERAL1", event["ts"]) == []


async def test_a_slack_retry_is_answered_once(
    live_server: Any, seeded: Any, slack: FakeSlack
) -> None:
    fake = FakeModel(slack_policy)
    adapter = bridge(slack, fake)
    async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
        event = slack.mention("only once please")
        body = slack.callback(event)
        first = await slack.send_http_event(url, body)
        retried = await slack.send_http_event(url, body, retry=1)
        await adapter.wait_idle()
    assert first.status_code == retried.status_code == 200
    assert slack.bot_replies("CGENERAL1", event["ts"]) == ["You said: only once please"]
    assert len([r for r in fake.requests if r.last and r.last.role == "user"]) == 1


async def test_a_follow_up_in_the_thread_sees_the_thread_and_keeps_its_room(
    live_server: Any, seeded: Any, slack: FakeSlack
) -> None:
    fake = FakeModel(slack_policy)
    adapter = bridge(slack, fake)
    async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
        first = slack.mention("my name is Ada")
        await slack.send_http_event(url, slack.callback(first))
        await adapter.wait_idle()
        second = slack.mention("and again", thread_ts=first["ts"])
        await slack.send_http_event(url, slack.callback(second))
        await adapter.wait_idle()
        rooms = {adapter.threads.room_of(SlackRoomBinding("dev", "CGENERAL1", first["ts"]))}
    assert slack.bot_replies("CGENERAL1", first["ts"]) == [
        "You said: my name is Ada",
        "You said: and again",
    ]
    assert len(rooms) == 1
    seen = " ".join(fake.requests[-2].texts("user") + fake.requests[-2].texts("assistant"))
    assert "my name is Ada" in seen


async def test_a_restarted_bridge_keeps_a_threads_room(
    live_server: Any, seeded: Any, slack: FakeSlack
) -> None:
    first = slack.mention("before the restart")
    for text, thread_ts in (("before the restart", None), ("after it", first["ts"])):
        adapter = bridge(slack, FakeModel(slack_policy))
        async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
            event = first if thread_ts is None else slack.mention(text, thread_ts=thread_ts)
            await slack.send_http_event(url, slack.callback(event))
            await adapter.wait_idle()
            chats = await adapter.rest.http.call("GET", "/agent/chats")  # the agent's rooms
    assert len(chats) == 1
    assert slack.bot_replies("CGENERAL1", first["ts"]) == [
        "You said: before the restart",
        "You said: after it",
    ]


async def test_socket_mode_events_are_acknowledged_answered_and_deduplicated(
    live_server: Any, seeded: Any, slack: FakeSlack
) -> None:
    fake = FakeModel(slack_policy)
    adapter = bridge(slack, fake, transport="socket")
    async with running(live_server, seeded, adapter):
        await until(lambda: slack.socket_connections == 1)
        event = slack.mention("over the socket")
        body = slack.callback(event)
        first = await slack.push_socket_event(body)
        again = await slack.push_socket_event(body, retry_attempt=1)
        took = [await slack.wait_acked(first), await slack.wait_acked(again)]
        await until(lambda: slack.bot_replies("CGENERAL1", event["ts"]))
        await adapter.wait_idle()
    assert max(took) < 3.0
    assert slack.bot_replies("CGENERAL1", event["ts"]) == ["You said: over the socket"]
    opened = [c for c in slack.calls if c.method == "apps.connections.open"]
    assert len(opened) == 1 and opened[0].token == slack.app_token
    assert slack.socket_connections == 0  # the agent's stop closed it


async def test_a_band_message_in_a_bound_room_is_answered_in_the_slack_thread(
    live_server: Any, seeded: Any, slack: FakeSlack, alice: Person
) -> None:
    fake = FakeModel(slack_policy)
    adapter = bridge(slack, fake)
    async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
        event = slack.mention("start here")
        await slack.send_http_event(url, slack.callback(event))
        await adapter.wait_idle()
        room_id = adapter.threads.room_of(SlackRoomBinding("dev", "CGENERAL1", event["ts"]))
        assert room_id is not None
        await adapter.rest.add_participant(room_id, seeded.user_id)
        message_id = await alice.say(room_id, "tell Slack hello", seeded.agent_id)
        await until_status(alice, room_id, message_id, seeded.agent_id, "processed")
    replies = slack.bot_replies("CGENERAL1", event["ts"])
    assert replies[0] == "You said: start here"
    assert replies[1].endswith("tell Slack hello")


async def test_tool_progress_is_a_plan_updated_in_place(
    live_server: Any, seeded: Any, slack: FakeSlack
) -> None:
    fake = FakeModel(slack_policy)
    fake.call_tool("band_get_participants", {}).call_tool(
        "slack_send_message", {"content": "Checked who is here."}
    ).reply("")
    adapter = bridge(slack, fake)
    async with running(live_server, seeded, adapter), events_endpoint(adapter) as url:
        event = slack.mention("who is in the room?")
        await slack.send_http_event(url, slack.callback(event))
        await adapter.wait_idle()
    thread = slack.thread("CGENERAL1", event["ts"])
    plans = [m for m in thread if m.get("blocks")]
    assert len(plans) == 1
    lines = [b["elements"][0]["text"] for b in plans[0]["blocks"][1:]]
    assert lines == ["✅ Get participants"]
    assert plans[0]["text"] == "Done"
    assert slack.bot_replies("CGENERAL1", event["ts"]) == ["Checked who is here."]


def test_a_transport_without_its_token_is_refused() -> None:
    app = SlackApp(slug="dev", bot_token="xoxb-1")
    with pytest.raises(ValueError, match="needs signing_secret and bot_token"):
        SlackAdapterConfig(apps=(app,))
    with pytest.raises(ValueError, match="needs app_token and bot_token"):
        SlackAdapterConfig(apps=(app,), transport="socket")
    twice = SlackApp(slug="dev", bot_token="xoxb-1", signing_secret="s")
    with pytest.raises(ValueError, match="Duplicate SlackApp slug: dev"):
        SlackAdapterConfig(apps=(twice, twice))


async def test_the_stand_in_refuses_what_slack_refuses(slack: FakeSlack) -> None:
    from slack_sdk.errors import SlackApiError

    async def error_of(token: str | None, body: dict[str, Any]) -> str:
        with pytest.raises(SlackApiError) as info:
            await slack.web_client(token).api_call("chat.postMessage", json=body)
        return str(info.value.response["error"])

    wrong_token = await error_of(slack.app_token, {"channel": "CGENERAL1", "text": "x"})
    no_text = await error_of(None, {"channel": "CGENERAL1"})
    bad_ts = await error_of(None, {"channel": "CGENERAL1", "text": "x", "thread_ts": "yesterday"})
    found = list(slack.violations)
    slack.violations.clear()
    async with httpx.AsyncClient() as http:
        unauth = (await http.post(slack.api_url + "auth.test")).json()
    assert wrong_token == "not_allowed_token_type"
    assert no_text == "no_text" and bad_ts == "invalid_arguments"
    assert len(found) == 3
    assert unauth == {"ok": False, "error": "not_authed"}


def test_a_plan_counts_pending_tasks_as_unfinished_and_finds_tasks_by_id() -> None:
    """band-sdk's plan vocabulary: a task starts pending; the plan is done when none is
    pending or in progress; send_message is a write, task tools are not."""
    from band.integrations.slack.block_kit import (
        DEFAULT_WRITE_TOOL_NAMES,
        PlanState,
        PlanTask,
        TaskState,
        plan_fallback_text,
        render_plan_blocks,
    )

    plan = PlanState()
    queued = PlanTask("call-1", "Send message", is_write=True)
    plan.add(queued)
    assert queued.state is TaskState.PENDING
    assert plan.tasks_by_id["call-1"] is queued
    assert not plan.done and plan_fallback_text(plan) == "Working on it…"
    assert render_plan_blocks(plan)[-1]["elements"][0]["text"] == "⏸ ✏️ Send message"
    queued.state = TaskState.COMPLETED
    assert plan.done and plan_fallback_text(plan) == "Done"
    assert "band_send_message" in DEFAULT_WRITE_TOOL_NAMES
    assert "band_create_task" not in DEFAULT_WRITE_TOOL_NAMES


async def test_closing_the_socket_client_settles_a_reconnect_in_flight() -> None:
    """A reconnect still waiting on Slack when the adapter stops is cancelled and awaited by
    close(): nothing keeps using the web client afterwards."""
    import asyncio

    from slack_sdk.web.async_client import AsyncWebClient

    from band.integrations.slack.socketclient import SettlingSocketModeClient

    async def never_answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # holds the request open until the client goes away
        writer.close()

    server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    web = AsyncWebClient(token="xoxb-1", base_url=f"http://127.0.0.1:{port}/api/")
    client = SettlingSocketModeClient(app_token="xapp-1", web_client=web)
    try:
        reconnect = asyncio.create_task(client.connect_to_new_endpoint(force=True))
        await until(lambda: bool(client._reconnects))
        await asyncio.wait_for(client.close(), 5)
        assert reconnect.done()
        assert not client._reconnects
        await client.connect_to_new_endpoint()  # closed: nothing is opened again
        assert not client._reconnects
    finally:
        server.close()
        await server.wait_closed()
