"""ACPClientAdapter end to end: ``band serve``, a real ACP agent process, a scripted model.

The agent (``scripted_agent.py``, on the ACP SDK) reaches Band's tools through the
adapter's loopback MCP server and asks permission before running a command; in ``manual``
mode the request becomes a notice in the room, answered with ``/approve`` or ``/decline``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from runtime_support import until

from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.adapters.acp import ACPConfigRequest
from band.testing import FakeModel, ModelRequest, Reply, ToolCall

from ..band_serve import Room
from ..coding_e2e import (
    PROOF,
    AgentStarter,
    agent_starter,
    approve_command,
    journey,
    proof_policy,
    timed_journey,
    workspaces,
)

pytestmark = [pytest.mark.timeout(120), pytest.mark.slow]

AGENT = Path(__file__).with_name("scripted_agent.py")


def last_call(request: ModelRequest) -> str | None:
    calls = [
        call["function"]["name"]
        for message in request.body.get("messages") or []
        for call in message.get("tool_calls") or []
    ]
    return calls[-1] if calls else None


def acp_config(model_url: str, **fields: Any) -> ACPClientAdapterConfig:
    return ACPClientAdapterConfig(
        command=[sys.executable, str(AGENT)], env={"BAND_FAKE_MODEL_URL": model_url}, **fields
    )


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(proof_policy(ToolCall("run_command", {"command": PROOF}), last_call))


@pytest.fixture
def start_agent(band_serve: Any, model_url: str, tmp_path: Path) -> AgentStarter:
    def build(**fields: Any) -> ACPClientAdapter:
        fields.setdefault("approval_mode", "manual")
        config = acp_config(model_url, **fields)
        return ACPClientAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_the_band_mcp_server(
    start_agent: Any, room: Room
) -> None:
    async with start_agent():
        await room.say("hello ACP")
        reply = await room.wait_text(lambda t: "You said: hello ACP" in t)
        calls = await until(lambda: room.events("tool_call"))
        results = await until(lambda: room.events("tool_result"))

        # The usage event follows the session event: wait for it rather than race it.
        tasks = await room.wait_task(lambda t: "band_usage" in (t["metadata"] or {}))
    assert "Hi Alice!" in reply
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_send_message"
    assert call["tool_call_id"] == result["tool_call_id"]
    assert any(t["content"] == "ACP client session" for t in tasks)


async def test_approve_lets_the_agent_run_the_command(start_agent: Any, room: Room) -> None:
    async with start_agent():
        await room.say("please run the proof command")
        token = await room.approval_token("permission")
        assert not (room.workspace / "proof.txt").exists()
        await room.say(f"/approve {token}")
        reply = await room.wait_text(lambda t: "I ran the proof command" in t)
        results = [json.loads(e["content"]) for e in await room.events("tool_result")]
    assert "band-proof" in reply
    assert (room.workspace / "proof.txt").read_text().strip() == "band-proof"
    assert any(r["name"] == "run_command" and "band-proof" in r["output"] for r in results)


async def test_decline_keeps_the_command_from_running(start_agent: Any, room: Room) -> None:
    async with start_agent():
        await room.say("please run the proof command")
        token = await room.approval_token("permission")
        await room.say(f"/decline {token}")
        reply = await room.wait_text(lambda t: "I did not run the proof command" in t)
        await room.say(f"/decline {token}")
        late = await room.wait_text(lambda t: "no longer pending" in t)
    assert not (room.workspace / "proof.txt").exists()
    assert "declined" in reply
    assert late.endswith(
        f"Approval `{token}` is no longer pending: it was already resolved as `decline`."
    )


async def test_a_restarted_agent_loads_the_same_session(
    start_agent: Any, room: Room, fake: FakeModel
) -> None:
    async with start_agent():
        await room.say("remember the number 7")
        await room.wait_text(lambda t: "remember the number 7" in t)
    first = [t for t in await room.events("task") if t["content"] == "ACP client session"]
    fake.reset()
    async with start_agent():
        await room.say("what was it?")
        await room.wait_text(lambda t: "what was it?" in t)
    sessions = [t for t in await room.events("task") if t["content"] == "ACP client session"]
    session_id = first[0]["metadata"]["acp_client_session_id"]
    assert {t["metadata"]["acp_client_session_id"] for t in sessions} == {session_id}
    users = fake.requests[0].texts("user")
    assert any("remember the number 7" in u for u in users[:-1])


def test_bad_configurations_are_refused() -> None:
    with pytest.raises(ValueError, match="ACP stdio transport requires a command"):
        ACPClientAdapterConfig(command="")
    with pytest.raises(ValueError, match="TCP ACP transport cannot guarantee room process"):
        ACPClientAdapterConfig(command="agent", host="127.0.0.1", port=9)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="custom ACP transports cannot guarantee"):
        ACPClientAdapter(ACPClientAdapterConfig(command="agent"), spawn_process=lambda: None)
    with pytest.raises(ValueError, match=r"Leave retention\.idle_timeout_s unset\."):
        ACPClientAdapterConfig(command="agent", retention={"idle_timeout_s": 60})
    with pytest.raises(ValueError, match="model/reasoning_effort or resolve_session_config"):
        config = ACPClientAdapterConfig(command="agent", model="m")
        ACPClientAdapter(config, resolve_session_config=lambda request: None)  # type: ignore[arg-type,return-value]
    with pytest.raises(ValueError, match="either cwd or workspace_for_room"):
        config = ACPClientAdapterConfig(command="agent", cwd="/srv/rooms")
        ACPClientAdapter(config, workspace_for_room=lambda room: room)
    assert ACPClientAdapterConfig(command="agent").retention.transition_timeout_s == 30


async def test_model_and_effort_are_chosen_from_the_sessions_options(
    start_agent: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_agent(model="fake-model-large", reasoning_effort="high"):
        await room.ask("hello")
    assert fake.requests[0].body["model"] == "fake-model-large"
    assert fake.requests[0].body["reasoning_effort"] == "high"


async def test_a_model_the_session_does_not_offer_fails_the_turn_with_the_choices(
    start_agent: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_agent(model="gpt-unknown"):
        await room.ask("hello", status="failed")
        errors = [e["content"] for e in await room.events("error")]
    assert errors == [
        "ACP session configuration failed: model `gpt-unknown` is not offered; the session "
        "offers `fake-model`, `fake-model-large`"
    ]
    assert fake.requests == []


async def test_model_command_switches_the_rooms_live_session(
    start_agent: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_agent():
        early = await command(room, "/model")
        await room.ask("hello")
        shown = await command(room, "/model")
        refused = await command(room, "/model gpt-unknown")
        switched = await command(room, "/model fake-model-large")
        before = len(fake.requests)
        await room.ask("again")
    assert "no session in this room yet" in early
    assert shown.endswith(
        "Model in this room: `fake-model`; offered: `fake-model`, `fake-model-large`. "
        "Reasoning effort `medium` (of low, medium, high)."
    )
    assert "Could not switch the model: model `gpt-unknown` is not offered" in refused
    assert switched.endswith("Model in this room is now `fake-model-large`.")
    assert {r.body["model"] for r in fake.requests[:before]} == {"fake-model"}
    assert {r.body["model"] for r in fake.requests[before:]} == {"fake-model-large"}


async def test_resolve_session_config_picks_the_options(
    band_serve: Any, model_url: str, tmp_path: Path, room: Room, fake: FakeModel
) -> None:
    seen: list[ACPConfigRequest] = []

    async def resolve(request: ACPConfigRequest) -> dict[str, str]:
        seen.append(request)
        return {"effort": "low"}

    def build() -> ACPClientAdapter:
        config = acp_config(model_url)
        return ACPClientAdapter(
            config, resolve_session_config=resolve, workspace_for_room=workspaces(tmp_path)
        )

    async with agent_starter(band_serve, build)():
        await room.ask("hello")
        refused = await command(room, "/model fake-model-large")
    assert fake.requests[0].body["reasoning_effort"] == "low"
    assert seen[0].room_id == room.id and {o.id for o in seen[0].config_options} == {
        "model",
        "effort",
    }
    assert "cannot be combined with resolve_session_config" in refused


async def command(room: Room, text: str) -> str:
    """The agent's notice answering ``text``."""
    before = len(await room.texts())
    await room.ask(text)
    texts = await room.texts()
    assert len(texts) == before + 1, texts[before:]
    return texts[-1]


async def test_a_prompt_that_overruns_is_cancelled_and_the_next_message_recovers(
    start_agent: AgentStarter, room: Room, fake: FakeModel
) -> None:
    fake.queue(Reply(text="too late", delay=10))
    async with start_agent(turn_timeout_s=1):
        await room.ask("take your time", status="failed")
        errors = [e["content"] for e in await room.events("error")]
        await room.ask("are you back?")
        texts = await room.texts()
    assert errors == ["The ACP agent did not finish within 1 s; the prompt was cancelled."]
    assert sum("You said: are you back?" in t for t in texts) == 1
    sessions = {
        t["metadata"]["acp_client_session_id"]
        for t in await room.events("task")
        if "acp_client_session_id" in t["metadata"]
    }
    assert len(sessions) == 1


@journey
async def test_journey_timings(start_agent: AgentStarter, room: Room) -> None:
    await timed_journey("ACPClientAdapter", start_agent, room, approve_command("permission"))
