"""Faults end to end: our SDK's ``Agent`` against a real server process, with crashes.

- The server is `kill -9`ed and restarted on the same data folder and port while the agent
  keeps running: a mention answered before, one in flight at the crash, and one posted
  after the restart are each answered exactly once.
- The agent process is `kill -9`ed in the middle of a turn and started again: the message
  is answered exactly once in total.

A socket dropped mid-turn is covered by the SDK runtime tests (tests/sdk).
Replies are counted per trigger by a token in their content.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import (
    E2E_DIR,
    AgentChild,
    Person,
    ServerChild,
    World,
    clean_env,
    seed_world,
    until,
)

from band.core import SimpleAdapter
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.platform.socket import SocketTimings
from band.runtime.agent import Agent
from band.runtime.config import AgentConfig, SessionConfig

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

SLOW_AGENT = E2E_DIR / "agents" / "slow_echo_agent.py"

FAST_SOCKET = SocketTimings(
    heartbeat_interval=1.0,
    heartbeat_timeout=3.0,
    backoff_base=0.05,
    backoff_cap=0.3,
    rapid_floors=(0.1, 0.2),
    initial_retry_delays=(0.1, 0.2),
)
# No periodic /next probe may stand in for the reconnect path under test.
NO_IDLE_RESYNC = SessionConfig(idle_resync_seconds=3600.0, idle_resync_max_seconds=3600.0)


@pytest.fixture
async def world(tmp_path: Path) -> World:
    return await seed_world(tmp_path / "data")


@pytest.fixture
async def server(tmp_path: Path, world: World) -> AsyncIterator[ServerChild]:
    child = ServerChild(data_dir=tmp_path / "data", log_dir=tmp_path / "logs")
    await child.start()
    try:
        yield child
    finally:
        child.stop()


@pytest.fixture
async def alice(server: ServerChild, world: World) -> AsyncIterator[Person]:
    headers = {"X-API-Key": world.person_key}
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=10) as http:
        yield Person(http, world.person_id)


def token(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


async def replies_to(person: Person, world: World, tok: str) -> int:
    texts = await person.texts_from(world.room_id, world.agent_id)
    return sum(1 for t in texts if tok in t)


async def delivery_status(person: Person, world: World, message_id: str) -> str | None:
    for m in await person.timeline(world.room_id):
        if m["id"] == message_id:
            status = ((m.get("metadata") or {}).get("delivery_status") or {}).get(world.agent_id)
            return str(status.get("status")) if isinstance(status, dict) else None
    return None


async def _async_true(value: bool) -> bool:
    return value


async def answered(
    person: Person,
    world: World,
    tokens: dict[str, str],
    *,
    within: float = 15.0,
    settle: float = 0.0,
) -> None:
    """Every token gets a reply and its delivery is processed; after ``settle`` s, no token
    has a second reply."""

    seen: dict[str, tuple[int, str | None]] = {}

    async def all_answered() -> bool:
        for tok, message_id in tokens.items():
            seen[tok] = (
                await replies_to(person, world, tok),
                await delivery_status(person, world, message_id),
            )
        return all(n >= 1 and status == "processed" for n, status in seen.values())

    await until(
        all_answered,
        within=within,
        what=f"one reply to each of {sorted(tokens)}",
        diagnostics=lambda: f"(replies, delivery status) per token: {seen}",
    )
    if not settle:
        return
    await asyncio.sleep(settle)  # room for a duplicate to show up
    counts = {tok: await replies_to(person, world, tok) for tok in tokens}
    assert counts == dict.fromkeys(tokens, 1), counts


# ----------------------------------------------------------------------------- server crash


class DelayedEcho(SimpleAdapter[list[dict[str, Any]]]):
    """Replies ``echo: <content>`` to the sender once per mention, after ``delay`` s."""

    def __init__(self, delay: float) -> None:
        super().__init__(history_converter=None)
        self.delay = delay
        self.seen: list[str] = []

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: list[dict[str, Any]],
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        self.seen.append(msg.id)
        await asyncio.sleep(self.delay)
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


async def test_server_kill_9_and_restart_answers_every_mention_once(
    server: ServerChild, world: World, alice: Person
) -> None:
    adapter = DelayedEcho(delay=0.5)
    agent = Agent.create(
        adapter=adapter,
        agent_id=world.agent_id,
        api_key=world.agent_key,
        ws_url=server.ws_url,
        rest_url=server.url,
        config=AgentConfig(single_instance=False),
        session_config=NO_IDLE_RESYNC,
        socket_timings=FAST_SOCKET,
    )
    await agent.start()
    try:
        mention = f"@{world.agent_handle}"
        before = token("before")
        before_id = await alice.say(world.room_id, f"{mention} {before}", world.agent_id)
        await answered(alice, world, {before: before_id})

        # Acknowledged (2xx) just before the crash, so the agent is inside its turn when the
        # server dies. The SDK waits the outage out (one Idempotency-Key across retries), so
        # the reply lands once the server is back, exactly once.
        inflight = token("inflight")
        inflight_id = await alice.say(world.room_id, f"{mention} {inflight}", world.agent_id)
        await until(
            lambda: _async_true(inflight_id in adapter.seen),
            within=10,
            what="the agent to start the in-flight turn",
        )
        server.kill9()
        with pytest.raises(httpx.ConnectError):  # a person cannot post during the outage
            await alice.say(world.room_id, f"{mention} during outage", world.agent_id)
        await server.start()

        after = token("after")
        after_id = await alice.say(world.room_id, f"{mention} {after}", world.agent_id)
        await answered(alice, world, {after: after_id}, within=20)

        async def inflight_settled() -> tuple[int, str | None] | None:
            state = (
                await replies_to(alice, world, inflight),
                await delivery_status(alice, world, inflight_id),
            )
            return state if state[1] in {"processed", "failed"} else None

        settled = await until(inflight_settled, within=60, what="the in-flight turn to settle")
        await asyncio.sleep(1.0)  # room for a duplicate to show up
        counts = {tok: await replies_to(alice, world, tok) for tok in (before, after)}
        assert counts == {before: 1, after: 1}, counts
        final = (
            await replies_to(alice, world, inflight),
            await delivery_status(alice, world, inflight_id),
        )
        assert final == settled
        assert final == (1, "processed"), final
        assert adapter.seen.count(inflight_id) == 1
        assert agent.is_running
    finally:
        await agent.stop()


# ----------------------------------------------------------------------------- agent crash


def _agent_env(
    server: ServerChild, world: World, tmp_path: Path, turn_seconds: float
) -> dict[str, str]:
    return clean_env(
        E2E_AGENT_ID=world.agent_id,
        E2E_API_KEY=world.agent_key,
        E2E_TURN_SECONDS=str(turn_seconds),
        BAND_REST_URL=server.url,
        BAND_WS_URL=server.ws_url,
        IDLE_RESYNC_SECONDS="3600",
        IDLE_RESYNC_MAX_SECONDS="3600",
        TMPDIR=str(tmp_path),
    )


async def test_agent_kill_9_mid_turn_then_restart_answers_once(
    tmp_path: Path, server: ServerChild, world: World, alice: Person
) -> None:
    log_path = tmp_path / "agent.log"
    first = AgentChild.start(
        SLOW_AGENT,
        cwd=tmp_path,
        env=_agent_env(server, world, tmp_path, turn_seconds=60),
        log_path=log_path,
    )
    second: AgentChild | None = None
    try:
        await first.wait_log(f"Agent started: {world.agent_name} (band-sdk 6.0.1)")
        tok = token("crash")
        message_id = await alice.say(world.room_id, f"@{world.agent_handle} {tok}", world.agent_id)
        await first.wait_log(f"turn started: {message_id}")
        assert await delivery_status(alice, world, message_id) == "processing"
        first.kill9()
        assert await replies_to(alice, world, tok) == 0

        second = AgentChild.start(
            SLOW_AGENT,
            cwd=tmp_path,
            env=_agent_env(server, world, tmp_path, turn_seconds=0.2),
            log_path=log_path,
        )
        await second.wait_log(f"turn replied: {message_id}", within=20)
        await answered(alice, world, {tok: message_id}, settle=1.5)
        assert second.log_text().count(f"turn replied: {message_id}") == 1

        code = await second.interrupt(within=10)
        assert code == 0, second.diagnostics()
    finally:
        first.close()
        if second is not None:
            second.close()
