"""``ExecutionContext`` under ``AgentRuntime``: controls, held input and control messages,
failures reported by the handler, the documented members, and ``report_activity``'s bound."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from runtime_support import Person, control, delivery_status, until, until_status

from band import AgentRuntime, AgentTools, BandLink, ExecutionContext, PlatformEvent
from band.core.exceptions import InputNotAccepted
from band.platform.event import MessageEvent
from band.runtime.config import SessionConfig
from band_sdk_core import AgentFailure

pytestmark = pytest.mark.timeout(60)

QUIET = SessionConfig(idle_resync_seconds=30.0, idle_resync_max_seconds=60.0)


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)


@asynccontextmanager
async def serving(
    live_server: Any, seeded: Any, on_execute: Any, **hooks: Any
) -> AsyncIterator[AgentRuntime]:
    """An ``AgentRuntime`` for the seeded agent, started, and stopped after the block."""
    link = BandLink(seeded.agent_id, seeded.agent_key, live_server.ws_url, live_server.url)
    runtime = AgentRuntime(link, seeded.agent_id, on_execute, session_config=QUIET, **hooks)
    await runtime.start()
    try:
        yield runtime
    finally:
        await runtime.stop(5)


def _text(event: PlatformEvent) -> str | None:
    if isinstance(event, MessageEvent) and event.payload is not None:
        return event.payload.content.split()[-1]
    return None


async def _reply(ctx: ExecutionContext, event: MessageEvent, text: str) -> None:
    assert event.payload is not None
    mention = [{"id": event.payload.sender_id}]
    await ctx.link.api.post_message(ctx.room_id, text, mention)


async def test_controls_reach_the_room_and_on_control(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Controls", seeded.agent_id)
    gate = asyncio.Event()
    started: list[str] = []
    controls: list[tuple[str, str]] = []

    async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
        said = _text(event)
        if said is None:
            return
        started.append(said)
        await gate.wait()
        assert isinstance(event, MessageEvent)
        await _reply(ctx, event, f"done: {said}")

    async def on_control(room_id: str, mode: str) -> None:
        controls.append((room_id, mode))

    async with serving(live_server, seeded, on_execute, on_control=on_control) as runtime:
        first = await alice.say(room, "long", seeded.agent_id)
        await until(lambda: started == ["long"])
        await control(live_server, seeded.agent_id, None, "interrupt")
        await until_status(alice, room, first, seeded.agent_id, "processed")  # consumed
        assert controls == [(room, "interrupt")]
        assert await alice.replies(room, seeded.agent_id) == []

        second = await alice.say(room, "pause", seeded.agent_id)
        await until(lambda: started == ["long", "pause"])
        await control(live_server, seeded.agent_id, room, "stop")
        ctx = runtime.executions[room]
        assert isinstance(ctx, ExecutionContext)
        await until(lambda: ctx.is_stopped and not ctx.is_processing)
        assert await delivery_status(alice, room, second, seeded.agent_id) == "processing"
        assert controls[-1] == (room, "stop")

        gate.set()
        await control(live_server, seeded.agent_id, room, "play")
        await until_status(alice, room, second, seeded.agent_id, "processed")
        assert not ctx.is_stopped
        assert started == ["long", "pause", "pause"]  # replayed after play
        assert len(controls) == 2  # play is the execution's own business
        assert [r.split(" ", 1)[-1] for r in await alice.replies(room, seeded.agent_id)] == [
            "done: pause"
        ]


async def test_a_held_message_lets_control_messages_through(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    """The handler does not accept "deploy" until approved; "/approve" is consumed by
    ``on_message_control`` (acknowledged without a turn), then "deploy" runs."""
    room = await alice.create_room("Approvals", seeded.agent_id)
    approved = asyncio.Event()
    executed: list[str] = []
    probed: list[str] = []

    async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
        said = _text(event)
        if said is None:
            return
        executed.append(said)
        if not approved.is_set():
            raise InputNotAccepted("waiting for an approval")
        assert isinstance(event, MessageEvent)
        await _reply(ctx, event, f"deployed: {said}")

    async def on_message_control(ctx: ExecutionContext, event: PlatformEvent) -> bool:
        said = _text(event) or ""
        probed.append(said)
        if said == "/approve":
            approved.set()
            return True
        return False

    async with serving(live_server, seeded, on_execute, on_message_control=on_message_control):
        deploy = await alice.say(room, "deploy", seeded.agent_id)
        await until(lambda: executed == ["deploy"])
        assert await delivery_status(alice, room, deploy, seeded.agent_id) == "processing"

        approve = await alice.say(room, "/approve", seeded.agent_id)
        await until_status(alice, room, approve, seeded.agent_id, "processed")
        await until_status(alice, room, deploy, seeded.agent_id, "processed")
        assert probed == ["/approve"]
        assert executed == ["deploy", "deploy"]  # the control message never became a turn
        assert [r.split(" ", 1)[-1] for r in await alice.replies(room, seeded.agent_id)] == [
            "deployed: deploy"
        ]


async def test_a_failure_reported_through_context_tools_is_not_reported_again(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Failures", seeded.agent_id)

    async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
        if not isinstance(event, MessageEvent):
            return
        tools = AgentTools.from_context(ctx)
        await tools.send_failure(AgentFailure("my-model", "The model is unavailable."))
        raise RuntimeError("model unavailable")

    async with serving(live_server, seeded, on_execute):
        message = await alice.say(room, "try", seeded.agent_id)
        await until_status(alice, room, message, seeded.agent_id, "failed")
        errors = await alice.events(room, "error")
        assert [e["content"] for e in errors] == ["The model is unavailable."]


async def test_documented_members_without_a_platform() -> None:
    link = BandLink("agent-1", "key", "ws://127.0.0.1:9/socket", "http://127.0.0.1:9")

    async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
        return None

    ctx = ExecutionContext("room-1", link, on_execute)
    try:
        assert (ctx.room_id, ctx.thread_id, ctx.agent_id) == ("room-1", "room-1", "agent-1")
        assert not ctx.is_running and not ctx.is_processing and not ctx.is_stopped

        ctx.inject_system_message("Bob is now a contact")
        prepared = ctx.peek_pending_system_messages()
        ctx.inject_system_message("Carol is now a contact")
        assert ctx.peek_pending_system_messages() == [*prepared, "Carol is now a contact"]
        ctx.commit_system_messages(prepared)  # only what the turn used is consumed
        assert ctx.get_pending_system_messages() == ["Carol is now a contact"]
        assert ctx.get_pending_system_messages() == []

        assert ctx.interrupt() is False  # nothing running: a no-op
        with pytest.raises(ValueError):
            ctx.interrupt(kind="play")
        with pytest.raises(ValueError):
            ctx.interrupt(kind="pause")

        assert not ctx.is_llm_initialized
        ctx.mark_llm_initialized()
        assert ctx.is_llm_initialized
        assert ctx.get_history_for_llm() == []  # sync; empty before hydration

        alice = {"id": "u1", "name": "Alice", "type": "User", "handle": "alice"}
        assert ctx.add_participant(alice) is True and ctx.add_participant(alice) is False
        assert ctx.participants_changed()
        snapshot = ctx.participants
        ctx.mark_participants_sent(snapshot)
        assert not ctx.participants_changed()
        assert "@alice" in ctx.build_participants_message()
        assert ctx.remove_participant("u1") and ctx.participants_changed()
        assert ctx.build_context().participants == []
    finally:
        await link.api.aclose()


async def test_report_activity_bounds_its_request_by_timeout_seconds() -> None:
    seen: list[dict[str, Any]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.extensions["timeout"]))
        return httpx.Response(200, json={"data": {"working": False}})

    transport = httpx.MockTransport(answer)
    link = BandLink("a", "key", "ws://127.0.0.1:9/socket", "http://platform", transport=transport)
    stopped: list[bool] = []
    try:
        took = await link.report_activity(
            "room-1", True, timeout_seconds=7, on_stopped=lambda: stopped.append(True)
        )
        assert took is True and stopped == [True]  # working:false answers a stopped room
        await link.report_activity("room-1", False)
        assert [t["read"] for t in seen] == [7.0, 2.0]
    finally:
        await link.api.aclose()


async def test_a_long_turn_refreshes_the_indicator_until_its_cap_a_short_one_never(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Keep-alive", seeded.agent_id)
    beats: list[tuple[str | None, bool]] = []
    current: list[str | None] = [None]

    async def on_execute(ctx: ExecutionContext, event: PlatformEvent) -> None:
        said = _text(event)
        current[0] = said
        if said == "long":
            await asyncio.sleep(3.4)  # beats due at 1.5 s (sent) and 3.0 s (past the cap)
        if said is not None:
            assert isinstance(event, MessageEvent)
            await _reply(ctx, event, f"done: {said}")

    config = QUIET.model_copy(
        update={
            "working_keep_alive_seconds": 1.5,
            "working_request_timeout_seconds": 1,
            "max_working_state_seconds": 2.0,
        }
    )
    link = BandLink(seeded.agent_id, seeded.agent_key, live_server.ws_url, live_server.url)
    runtime = AgentRuntime(link, seeded.agent_id, on_execute, session_config=config)
    await runtime.start()
    sent = link.api.send_activity

    async def recorded(room_id: str, working: bool, **kw: Any) -> bool | None:
        beats.append((current[0], working))
        return await sent(room_id, working, **kw)

    link.api.send_activity = recorded  # type: ignore[method-assign]
    try:
        for word in ("short", "long"):
            message = await alice.say(room, word, seeded.agent_id)
            await until_status(alice, room, message, seeded.agent_id, "processed")
    finally:
        await runtime.stop(5)
    # The platform starts the indicator with the claim and the ack ends it: the short turn
    # sends no /activity at all, the long one exactly one refresh before its cap.
    assert beats == [("long", True)]
