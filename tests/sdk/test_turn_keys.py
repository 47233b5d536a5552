"""Turn keys on the local platform: a message run again after a crash answers once.

A process "dies" at an exact request (a transport that raises a ``BaseException`` nothing in
the SDK catches); a fresh ``OneShotInvoker`` (a new process) handles the same envelope. The
adapter says something different on every run, as a model would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from band import BandLink
from band.core import AgentToolsProtocol, SimpleAdapter
from band.core.types import PlatformMessage
from band.platform.turn_keys import turn_post_key, turn_scope, unkeyed, with_turn_id
from band.runtime.oneshot import OneShotInvoker
from band_server.testing.local_platform import Identity, LocalPlatform

pytestmark = pytest.mark.timeout(60)


class Died(BaseException):
    """The process ended here (nothing after this point ran)."""


class DieAt(httpx.AsyncBaseTransport):
    """The network, until the first request ``when`` picks: then the process dies."""

    def __init__(self, when: Callable[[httpx.Request], bool]) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.when = when

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.when(request):
            raise Died(request.url.path)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


class Chatty(SimpleAdapter[Any]):
    """Thinks, then answers; each run (each instance) words both differently."""

    runs = 0

    def __init__(self) -> None:
        super().__init__()
        Chatty.runs += 1
        self.run = Chatty.runs
        self.results: list[Any] = []

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: Any,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        await tools.send_event(f"thinking, run {self.run}", "thought")
        self.results.append(await tools.send_message(f"answer, run {self.run}", [msg.sender_id]))


World = tuple[LocalPlatform, Identity, Identity, str]


@pytest.fixture
async def world() -> AsyncIterator[World]:
    Chatty.runs = 0
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        room = await platform.room(alice, echo)
        yield platform, alice, echo, room


async def _invoker(
    platform: LocalPlatform, echo: Identity, transport: httpx.AsyncBaseTransport | None = None
) -> tuple[OneShotInvoker, Chatty]:
    adapter = Chatty()
    link = BandLink(echo.id, echo.key, platform.ws_url, platform.rest_url, transport=transport)
    invoker = OneShotInvoker(link=link, adapter=adapter, agent_id=echo.id)
    await invoker.startup()
    return invoker, adapter


async def _envelope(platform: LocalPlatform, alice: Identity, room: str) -> dict[str, Any]:
    message = next(m for m in await platform.messages(alice, room) if m["content"].endswith("hi"))
    payload = {**message, "chat_room_id": room}
    return {"event_type": "message_created", "room_id": room, "payload": payload}


async def _speech(platform: LocalPlatform, alice: Identity, room: str, echo: Identity) -> list[str]:
    return [
        f"{m['message_type']}: {m['content']}"
        for m in await platform.messages(alice, room)
        if m["sender_id"] == echo.id
    ]


def _path_ends(suffix: str) -> Callable[[httpx.Request], bool]:
    return lambda r: r.method == "POST" and r.url.path.endswith(suffix)


async def test_rerun_after_a_crash_before_processed_posts_nothing_again(world: World) -> None:
    platform, alice, echo, room = world
    await platform.post(alice, room, "hi", echo)
    envelope = await _envelope(platform, alice, room)

    first, _ = await _invoker(platform, echo, DieAt(_path_ends("/processed")))
    with pytest.raises(Died):
        await first.handle_event(envelope)
    posted = await _speech(platform, alice, room, echo)
    assert [p.split(": ")[0] for p in posted] == ["thought", "text"]
    assert posted[1].endswith("answer, run 1")

    again, adapter = await _invoker(platform, echo)
    result = await again.handle_event(envelope)
    assert result["status"] == "done"
    assert await _speech(platform, alice, room, echo) == posted  # the first run's words stand
    # The re-run's reply counted as made: no missing-reply notice, no error event.
    assert adapter.results[0]["already_posted"] is True
    assert (await again.handle_event(envelope))["status"] in ("already_processed", "no_pending")


class RefuseOnce(DieAt):
    """The network, except that the first request ``when`` picks gets an unconfirming 409."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.when(request):
            self.when = lambda _r: False
            body = {"error": {"code": "conflict", "message": "try again", "request_id": "r"}}
            return httpx.Response(409, json=body, request=request)
        return await self.inner.handle_async_request(request)


async def test_an_unconfirmed_ack_leaves_the_message_open_and_a_retry_finishes_it(
    world: World,
) -> None:
    platform, alice, echo, room = world
    await platform.post(alice, room, "hi", echo)
    envelope = await _envelope(platform, alice, room)
    invoker, _ = await _invoker(platform, echo, RefuseOnce(_path_ends("/processed")))
    assert (await invoker.handle_event(envelope))["status"] == "done"
    posted = await _speech(platform, alice, room, echo)
    # Not acknowledged: the same envelope again runs the turn again, posting nothing twice.
    assert (await invoker.handle_event(envelope))["status"] == "done"
    assert await _speech(platform, alice, room, echo) == posted
    assert (await invoker.handle_event(envelope))["status"] in ("already_processed", "no_pending")


async def test_partial_turn_posts_only_what_the_first_run_did_not(world: World) -> None:
    platform, alice, echo, room = world
    await platform.post(alice, room, "hi", echo)
    envelope = await _envelope(platform, alice, room)

    first, _ = await _invoker(platform, echo, DieAt(_path_ends("/messages")))
    with pytest.raises(Died):
        await first.handle_event(envelope)
    assert await _speech(platform, alice, room, echo) == ["thought: thinking, run 1"]

    again, _ = await _invoker(platform, echo)
    assert (await again.handle_event(envelope))["status"] == "done"
    speech = await _speech(platform, alice, room, echo)
    assert speech[0] == "thought: thinking, run 1"
    assert len(speech) == 2 and speech[1].startswith("text:") and speech[1].endswith("run 2")


async def test_same_words_again_are_replayed_not_reposted(world: World) -> None:
    platform, alice, echo, room = world
    link = BandLink(echo.id, echo.key, platform.ws_url, platform.rest_url)
    try:
        for _ in range(2):  # the same turn, run twice, saying the same thing
            with turn_scope(echo.id, "message-1"):
                sent = await link.api.post_message(room, "same words", [{"id": alice.id}])
            assert sent["id"]
        texts = await _speech(platform, alice, room, echo)
        assert len([t for t in texts if t.endswith("same words")]) == 1, texts
        # Outside a turn nothing is keyed by message: two posts are two messages.
        for _ in range(2):
            await link.api.post_message(room, "outside a turn", [{"id": alice.id}])
        texts = await _speech(platform, alice, room, echo)
        assert len([t for t in texts if t.endswith("outside a turn")]) == 2, texts
    finally:
        await link.api.aclose()


def test_keys_follow_route_kind_and_position() -> None:
    messages, events = "/agent/chats/r1/messages", "/agent/chats/r1/events"
    thought = {"event": {"message_type": "thought"}}
    call = {"event": {"message_type": "tool_call"}}
    assert turn_post_key("POST", messages, {}) is None  # no turn
    with turn_scope("agent", "m1"):
        first = [turn_post_key("POST", messages, {}), turn_post_key("POST", events, thought)]
        second_reply = turn_post_key("POST", messages, {})
        tool_call = turn_post_key("POST", events, call)
        assert turn_post_key("GET", messages, None) is None
        assert turn_post_key("POST", "/agent/chats/r1/participants", {}) is None
    with turn_scope("agent", "m1"):  # the re-run: same positions, same keys
        assert turn_post_key("POST", events, call) == tool_call
        assert [turn_post_key("POST", messages, {}), turn_post_key("POST", events, thought)] == (
            first
        )
        assert turn_post_key("POST", messages, {}) == second_reply
    with turn_scope("agent", "m2"):
        assert turn_post_key("POST", messages, {}) != first[0]
    assert len(set([*first, second_reply, tool_call])) == 4


def test_posts_in_a_turn_name_it_and_nothing_else_does() -> None:
    """``with_turn_id``: an event's metadata and a message get the turn's message id (a copy;
    the caller's own turn_id wins); outside a turn, or for other routes, the body is as given."""
    event = {"event": {"content": "hm", "message_type": "thought", "metadata": None}}
    message = {"message": {"content": "hi", "mentions": []}}
    events, messages = "/agent/chats/r1/events", "/agent/chats/r1/messages"
    assert with_turn_id("POST", events, event) is event  # no turn
    with turn_scope("agent-1", "msg-7"):
        tagged = with_turn_id("POST", events, event)
        assert tagged["event"]["metadata"] == {"turn_id": "msg-7"}
        assert event["event"]["metadata"] is None  # the caller's body is untouched
        assert with_turn_id("POST", messages, message)["message"]["turn_id"] == "msg-7"
        own = {"event": {**event["event"], "metadata": {"turn_id": "mine", "x": 1}}}
        assert with_turn_id("POST", events, own)["event"]["metadata"] == {"turn_id": "mine", "x": 1}
        for method, path in (("GET", messages), ("POST", "/agent/chats/r1/messages/m/processed")):
            assert with_turn_id(method, path, message) is message


def test_unkeyed_posts_carry_no_key_and_take_no_position() -> None:
    """A writer with its own idempotency (the CrewAI Flow's reserve, send, confirm) posts
    unkeyed, so its re-run's other posts are not mistaken for the first run's."""
    messages = "/agent/chats/r1/messages"
    with turn_scope("agent", "m1"):
        first = turn_post_key("POST", messages, {})
    with turn_scope("agent", "m1"):
        with unkeyed():
            assert turn_post_key("POST", messages, {}) is None
        assert turn_post_key("POST", messages, {}) == first
