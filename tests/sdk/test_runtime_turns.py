"""The runtime against the real platform: replies, backlog, failures, missing replies, history."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from runtime_support import EchoAdapter, Person, make_agent, session, until, until_status

from band.core.protocols import GENERIC_PROVIDER_FAILURE_MESSAGE
from band_sdk_core import MISSING_REPLY_MESSAGE

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)


async def test_mention_gets_one_reply_and_the_delivery_is_processed(
    live_server: Any, seeded: Any, alice: Person, caplog: pytest.LogCaptureFixture
) -> None:
    room = await alice.create_room("Lab", seeded.agent_id)
    adapter = EchoAdapter()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    with caplog.at_level(logging.INFO, logger="band"):
        await agent.start()
    try:
        assert adapter.started_with == ("Echo", "A helpful test agent")
        assert "Agent started: Echo (band-sdk 6.0.1)" in caplog.messages
        message_id = await alice.say(room, "hello there", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "processed")
        replies = await alice.replies(room, seeded.agent_id)
        assert len(replies) == 1 and "echo:" in replies[0]
        turn = adapter.turns[0]
        assert turn.msg.id == message_id and turn.bootstrap
        assert turn.msg.sender_name == "Alice"
        assert f"@{seeded.agent_handle}" in turn.msg.content
        assert turn.participants_msg and "## Current Participants" in turn.participants_msg
    finally:
        await agent.stop(5)
    assert adapter.cleaned == [room]
    assert len(adapter.turns) == 1


async def test_backlog_posted_before_start_is_served_through_next(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Backlog", seeded.agent_id)
    first = await alice.say(room, "one", seeded.agent_id)
    second = await alice.say(room, "two", seeded.agent_id)
    adapter = EchoAdapter()
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        await until_status(alice, room, second, seeded.agent_id, "processed")
        await until_status(alice, room, first, seeded.agent_id, "processed")
        assert [t.msg.id for t in adapter.turns] == [first, second]
        assert [t.bootstrap for t in adapter.turns] == [True, False]
        assert len(await alice.replies(room, seeded.agent_id)) == 2
    finally:
        await agent.stop(5)


async def test_a_restarted_agent_bootstraps_with_history_before_the_trigger(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("History", seeded.agent_id)
    first_run = make_agent(live_server, seeded.agent_id, seeded.agent_key, EchoAdapter())
    await first_run.start()
    first = await alice.say(room, "remember the number 7", seeded.agent_id)
    await until_status(alice, room, first, seeded.agent_id, "processed")
    await first_run.stop(5)

    adapter = EchoAdapter()
    second_run = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await second_run.start()
    try:
        trigger = await alice.say(room, "what was it?", seeded.agent_id)
        await until_status(alice, room, trigger, seeded.agent_id, "processed")
        turn = adapter.turns[0]
        assert turn.bootstrap
        raw = turn.history
        assert [h["role"] for h in raw] == ["user", "assistant"]
        assert set(raw[0]) == {
            "role",
            "content",
            "sender_name",
            "sender_type",
            "message_type",
            "metadata",
        }
        assert raw[0]["content"].endswith("remember the number 7")
        assert "@[[" not in raw[0]["content"] and f"@{seeded.agent_handle}" in raw[0]["content"]
        assert raw[1]["sender_name"] == "Echo" and raw[1]["sender_type"] == "Agent"
        assert all("what was it?" not in h["content"] for h in raw)
    finally:
        await second_run.stop(5)


async def test_a_raising_turn_is_failed_with_one_internal_error_event(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Fail", seeded.agent_id)
    adapter = EchoAdapter("raise")
    agent = make_agent(
        live_server,
        seeded.agent_id,
        seeded.agent_key,
        adapter,
        session_config=session(idle_resync_seconds=0.3, idle_resync_max_seconds=0.3),
    )
    await agent.start()
    try:
        message_id = await alice.say(room, "please fail", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "failed")
        errors = await until(lambda: alice.events(room, "error"))
        assert [e["content"] for e in errors] == [GENERIC_PROVIDER_FAILURE_MESSAGE]
        assert errors[0]["metadata"]["failure"]["provider"] == "band-runtime"
        await asyncio.sleep(1.0)  # idle resyncs see the failed message again: not re-run
        assert len(adapter.turns) == 1
        assert len(await alice.events(room, "error")) == 1
        assert await alice.replies(room, seeded.agent_id) == []
    finally:
        await agent.stop(5)


async def test_a_turn_that_only_reads_reports_the_missing_reply_once(
    live_server: Any, seeded: Any, alice: Person
) -> None:
    room = await alice.create_room("Quiet", seeded.agent_id)
    adapter = EchoAdapter("read_only")
    agent = make_agent(live_server, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        message_id = await alice.say(room, "say nothing", seeded.agent_id)
        await until_status(alice, room, message_id, seeded.agent_id, "failed")
        errors = await until(lambda: alice.events(room, "error"))
        assert [e["content"] for e in errors] == [MISSING_REPLY_MESSAGE]
        await asyncio.sleep(0.3)
        assert len(await alice.events(room, "error")) == 1
    finally:
        await agent.stop(5)
