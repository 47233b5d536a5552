"""Turn judging, faults and routing with the official client (`band-sdk==6.0.1`) on our server.

The same scenarios our own SDK passes in tests/sdk/test_runtime_turns.py and
tests/e2e/test_faults.py, run by agents written on the official `SimpleAdapter`
(tests/compat/agents/turns_agent.py picks its behaviour from a `[mode:...]` token in the
message). Every wait is a poll with a deadline; every "exactly once" check waits a few
seconds more for a duplicate to show up.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import pytest

from .compat_harness import AgentApi, AgentCreds, AgentProcess, World, delivery_of, wait_for

pytestmark = [pytest.mark.compat, pytest.mark.timeout(180)]

MISSING_REPLY = (
    "The agent ended its turn without replying or calling band_no_reply, "
    "so nothing reached the room."
)
GENERIC_FAILURE = "Internal error while processing message; see agent logs."
RAISE_TEXT = "compat turns: the adapter raised on purpose"  # = agents/turns_agent.py
FAILURE_PROVIDER = "compat-provider"
FAILURE_MESSAGE = "compat turns: the provider reported a failure"
SETTLE = 2.5  # seconds given to a duplicate (reply, error event, turn) to show up


def token(label: str) -> str:
    return f"{label}-{uuid.uuid4().hex[:8]}"


async def mention(world: World, text: str, who: AgentCreds | None = None) -> dict[str, Any]:
    """Alice posts `@<agent> text` in the main room mentioning only `who` (default Echo)."""
    target = who or world.agent
    r = await world.human.post_message(world.room, f"@{target.handle} {text}", [target.id])
    assert r.status_code in (200, 201), f"POST messages: {r.status_code} {r.text}"
    data: dict[str, Any] = r.json()["data"]
    assert data.get("id"), f"no message id in {r.text}"
    return data


async def from_agent(world: World, agent_id: str, kind: str) -> list[dict[str, Any]]:
    msgs = await world.human.messages(world.room)
    return [m for m in msgs if m["sender_id"] == agent_id and m["message_type"] == kind]


async def status_of(world: World, message_id: str, agent_id: str) -> dict[str, Any] | None:
    msgs = await world.human.messages(world.room)
    mine = next((m for m in msgs if m["id"] == message_id), None)
    assert mine is not None, f"message {message_id} missing from the listing"
    return delivery_of(mine, agent_id)


async def wait_status(
    world: World, message_id: str, wanted: str, agent_id: str | None = None, within: float = 30
) -> dict[str, Any]:
    who = agent_id or world.agent.id

    async def probe() -> dict[str, Any] | None:
        status = await status_of(world, message_id, who)
        return status if status and status.get("status") == wanted else None

    return await wait_for(
        probe,
        within=within,
        what=f"delivery of {message_id} to {who} to be {wanted}",
        diagnostics=world.diagnostics,
    )


async def wait_errors(world: World) -> list[dict[str, Any]]:
    async def probe() -> list[dict[str, Any]] | None:
        return await from_agent(world, world.agent.id, "error") or None

    return await wait_for(
        probe, within=30, what="an error event from the agent", diagnostics=world.diagnostics
    )


async def start_turns_agent(world: World, name: str = "turns", **env: str) -> AgentProcess:
    agent = world.spawn("turns_agent.py", name, extra_env=env or None)
    await agent.wait_event("ready", within=60)
    return agent


async def replies_with(world: World, agent_id: str, tok: str) -> int:
    return sum(1 for m in await from_agent(world, agent_id, "text") if tok in m["content"])


# --------------------------------------------------------------------------- turn judging


@pytest.mark.parametrize("mode", ["read_only", "nothing"])
async def test_turn_without_reply_reports_missing_reply_once(world: World, mode: str) -> None:
    """A turn that only reads (get_participants) or does nothing: one missing-reply event,
    the message ends failed, nothing else reaches the room."""
    agent = await start_turns_agent(world)
    posted = await mention(world, f"[mode:{mode}] say nothing")
    await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])
    if mode == "read_only":
        read = await agent.wait_event(
            "tool_result", match=lambda e: e["message_id"] == posted["id"]
        )
        ids = {p.get("id") for p in read["value"]} if isinstance(read["value"], list) else set()
        assert {world.person.id, world.agent.id} <= ids, read

    errors = await wait_errors(world)
    status = await wait_status(world, posted["id"], "failed")
    assert errors[0]["content"] == MISSING_REPLY, errors
    failure = (errors[0].get("metadata") or {}).get("failure") or {}
    assert failure.get("provider") == "band-runtime", errors[0]
    assert failure.get("message") == MISSING_REPLY, errors[0]
    attempts = status.get("attempts") or []
    assert [a.get("status") for a in attempts] == ["failed"], status

    await asyncio.sleep(SETTLE)
    assert len(await from_agent(world, world.agent.id, "error")) == 1
    assert await from_agent(world, world.agent.id, "text") == []
    assert len(agent.turns_for(posted["id"])) == 1, agent.diagnostics()
    world.assert_wire_clean()


async def test_raising_turn_posts_one_internal_error_on_its_last_attempt(world: World) -> None:
    """Default retry budget (1): the first attempt is the last, so the generic internal-error
    event is posted once, the message ends failed with the exception text, no re-run."""
    agent = await start_turns_agent(world)
    posted = await mention(world, "[mode:raise] please fail")
    await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])

    errors = await wait_errors(world)
    status = await wait_status(world, posted["id"], "failed")
    assert errors[0]["content"] == GENERIC_FAILURE, errors
    failure = (errors[0].get("metadata") or {}).get("failure") or {}
    assert failure.get("provider") == "band-runtime", errors[0]
    failed = [a for a in status.get("attempts") or [] if a.get("status") == "failed"]
    assert len(failed) == 1 and RAISE_TEXT in (failed[0].get("error") or ""), status

    await asyncio.sleep(SETTLE)
    assert len(await from_agent(world, world.agent.id, "error")) == 1
    assert await from_agent(world, world.agent.id, "text") == []
    assert len(agent.turns_for(posted["id"])) == 1, agent.diagnostics()
    world.assert_wire_clean()


async def test_send_failure_then_raise_replaces_the_generic_error(world: World) -> None:
    """`tools.send_failure(AgentFailure(provider, message))` then raise: that failure is the
    room's only error event; the message ends failed."""
    agent = await start_turns_agent(world)
    posted = await mention(world, "[mode:send_failure] report it yourself")
    await agent.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])

    errors = await wait_errors(world)
    status = await wait_status(world, posted["id"], "failed")
    assert errors[0]["content"] == FAILURE_MESSAGE, errors
    failure = (errors[0].get("metadata") or {}).get("failure") or {}
    assert failure.get("provider") == FAILURE_PROVIDER, errors[0]
    assert failure.get("message") == FAILURE_MESSAGE, errors[0]
    failed = [a for a in status.get("attempts") or [] if a.get("status") == "failed"]
    assert len(failed) == 1, status

    await asyncio.sleep(SETTLE)
    contents = [e["content"] for e in await from_agent(world, world.agent.id, "error")]
    assert contents == [FAILURE_MESSAGE], contents
    assert len(agent.turns_for(posted["id"])) == 1, agent.diagnostics()
    world.assert_wire_clean()


async def test_band_no_reply_tool_completes_the_turn_silently(world: World) -> None:
    """`execute_tool_call("band_no_reply", ...)`: the turn completes, the message is
    processed, the agent posts nothing at all."""
    agent = await start_turns_agent(world)
    posted = await mention(world, "[mode:no_reply] nothing needed")
    result = await agent.wait_event("tool_result", match=lambda e: e["message_id"] == posted["id"])
    assert result["value"] == {"status": "no_reply"}, result

    status = await wait_status(world, posted["id"], "processed")
    assert [a.get("status") for a in status.get("attempts") or []] == ["success"], status
    r = await world.agent_api.next_message(world.room)
    assert r.status_code == 204, f"/next after no_reply: {r.status_code} {r.text}"

    await asyncio.sleep(SETTLE)
    msgs = await world.human.messages(world.room)
    posted_by_agent = [m for m in msgs if m["sender_id"] == world.agent.id]
    assert posted_by_agent == [], json.dumps(posted_by_agent, indent=1)
    assert len(agent.turns_for(posted["id"])) == 1, agent.diagnostics()
    world.assert_wire_clean()


# --------------------------------------------------------------------------- faults


async def test_agent_kill_9_mid_turn_then_restart_answers_once(world: World) -> None:
    """SIGKILL the agent process inside its turn (message `processing`, no reply yet); a new
    process with the same key answers that message, exactly once in total."""
    first = await start_turns_agent(world, "first", COMPAT_TURN_SECONDS="60")
    tok = token("crash")
    posted = await mention(world, tok)
    await first.wait_event("turn", match=lambda e: e["message_id"] == posted["id"])
    await wait_status(world, posted["id"], "processing", within=10)
    first.kill9()
    assert await replies_with(world, world.agent.id, tok) == 0

    second = await start_turns_agent(world, "second", COMPAT_TURN_SECONDS="0.2")
    await second.wait_event("replied", within=45, match=lambda e: e["message_id"] == posted["id"])
    await wait_status(world, posted["id"], "processed")

    await asyncio.sleep(SETTLE)
    assert await replies_with(world, world.agent.id, tok) == 1
    assert len(second.turns_for(posted["id"])) == 1, second.diagnostics()
    world.assert_wire_clean()


async def test_server_kill_9_mid_turn_answers_every_mention_once(world: World) -> None:
    """kill -9 the server while the agent is inside a turn, restart it on the same folder and
    port before the turn replies: the in-flight mention, one answered before and one posted
    after the restart are each answered exactly once and end processed.
    (test_official_sdk.py covers a crash between turns.)"""
    agent = await start_turns_agent(world)
    before = token("before")
    before_msg = await mention(world, before)
    await agent.wait_event("replied", match=lambda e: e["message_id"] == before_msg["id"])
    await wait_status(world, before_msg["id"], "processed")

    inflight = token("inflight")
    gate = world.tmp / "inflight.gate"  # the turn replies once this exists
    inflight_msg = await mention(world, f"[until:{gate}] {inflight}")
    await agent.wait_event("turn", match=lambda e: e["message_id"] == inflight_msg["id"])
    world.server.kill9()
    await world.server.start()  # same data folder, same port
    gate.touch()  # only now may the turn reply: the server is back, however long that took

    after = token("after")
    after_msg = await mention(world, after)
    await agent.wait_event(
        "replied", within=60, match=lambda e: e["message_id"] == inflight_msg["id"]
    )
    await agent.wait_event("replied", within=60, match=lambda e: e["message_id"] == after_msg["id"])
    for m in (before_msg, inflight_msg, after_msg):
        await wait_status(world, m["id"], "processed")

    await asyncio.sleep(SETTLE)
    counts = {tok: await replies_with(world, world.agent.id, tok) for tok in (before, inflight)}
    counts[after] = await replies_with(world, world.agent.id, after)
    assert counts == {before: 1, inflight: 1, after: 1}, counts
    for m in (before_msg, inflight_msg, after_msg):
        assert len(agent.turns_for(m["id"])) == 1, agent.diagnostics()


# --------------------------------------------------------------------------- routing


async def test_two_agents_only_the_mentioned_one_answers(world: World) -> None:
    """Echo and Other both run in the room. A mention of Echo is answered by Echo only; the
    tool_call/tool_result events and reply Echo posts never make a turn for Other; and the
    same holds the other way round."""
    echo = world.spawn("echo_agent.py", "echo")
    other = world.spawn("echo_agent.py", "other", creds=world.other)
    await echo.wait_event("ready", within=60)
    await other.wait_event("ready", within=60)

    for_echo = await mention(world, "only for echo")
    await echo.wait_event("replied", match=lambda e: e["message_id"] == for_echo["id"])
    await wait_status(world, for_echo["id"], "processed")
    for_other = await mention(world, "only for other", who=world.other)
    await other.wait_event("replied", match=lambda e: e["message_id"] == for_other["id"])
    await wait_status(world, for_other["id"], "processed", agent_id=world.other.id)

    await asyncio.sleep(SETTLE)
    assert [e["message_id"] for e in echo.events("turn")] == [for_echo["id"]], echo.diagnostics()
    assert [e["message_id"] for e in other.events("turn")] == [for_other["id"]], other.diagnostics()
    for agent in (world.agent, world.other):
        kinds = [
            m["message_type"]
            for m in await world.human.messages(world.room)
            if m["sender_id"] == agent.id
        ]
        assert kinds == ["tool_call", "tool_result", "text"], (agent.name, kinds)
    # Each message carries a delivery for the agent it mentions, none for the other one.
    assert await status_of(world, for_echo["id"], world.other.id) is None
    assert await status_of(world, for_other["id"], world.agent.id) is None
    other_api = AgentApi(world.server.url, world.other.key)
    try:
        r = await other_api.next_message(world.room)
        assert r.status_code == 204, f"/next for Other: {r.status_code} {r.text}"
    finally:
        await other_api.aclose()
    world.assert_wire_clean()
