"""OpencodeAdapter end to end: ``band serve``, the real ``opencode serve``, a scripted
OpenAI-compatible model (streamed, with tool calls).

What a person in the room sees: the answer to a mention (OpenCode calls Band's tool over
MCP), an approval notice when OpenCode asks to run ``bash``, the command's effect after
``/approve`` (none after ``/decline``), the same session after a restart, and failures in
words.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from runtime_support import until

from band.adapters import OpencodeAdapter, OpencodeAdapterConfig
from band.testing import Failure, FakeModel, ModelRequest, ToolCall

from ..band_serve import Room
from ..coding_e2e import (
    PROOF,
    AgentStarter,
    agent_starter,
    approve_command,
    bad_credentials_errors,
    journey,
    proof_policy,
    resumes_the_same_session,
    status_help_texts,
    timed_journey,
)
from .opencode_support import OpencodeServe

pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

KEY = "opencode_session_id"
BASH = ToolCall("bash", {"command": PROOF, "description": "write the proof file"})


def last_call(request: ModelRequest) -> str | None:
    calls = [
        call["function"]["name"]
        for message in request.body.get("messages") or []
        for call in message.get("tool_calls") or []
    ]
    return calls[-1] if calls else None


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(proof_policy(BASH, last_call))


@pytest.fixture
def start_opencode(band_serve: Any, opencode: OpencodeServe) -> AgentStarter:
    def build(**fields: Any) -> OpencodeAdapter:
        config = OpencodeAdapterConfig(base_url=opencode.url, **fields)
        return OpencodeAdapter(config)

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_the_band_mcp_server(
    start_opencode: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_opencode():
        await room.say("hello OpenCode")
        reply = await room.wait_text(lambda t: "You said: hello OpenCode" in t)
        calls = await until(lambda: room.events("tool_call"))
        results = await until(lambda: room.events("tool_result"))
        tasks = await room.wait_task(lambda t: "band_usage" in (t["metadata"] or {}))
    assert "Hi Alice!" in reply
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_send_message"
    assert call["tool_call_id"] == result["tool_call_id"]
    sessions = [t for t in tasks if t["content"] == "OpenCode session"]
    assert len(sessions) == 1 and sessions[0]["metadata"][KEY].startswith("ses_")
    assert any(r.stream and r.offered("band_send_message") for r in fake.requests)


async def test_approve_lets_opencode_run_the_command(
    start_opencode: AgentStarter, room: Room, opencode: OpencodeServe
) -> None:
    async with start_opencode():
        await room.say("please run the proof command")
        token = await room.approval_token("bash")
        assert not (opencode.folder / "proof.txt").exists()
        await room.say(f"/approve {token}")
        reply = await room.wait_text(lambda t: "I ran the proof command" in t)
        results = [json.loads(e["content"]) for e in await room.events("tool_result")]
    assert "band-proof" in reply
    assert (opencode.folder / "proof.txt").read_text().strip() == "band-proof"
    assert any(r["name"] == "bash" and "band-proof" in r["output"] for r in results)


async def test_decline_keeps_the_command_from_running(
    start_opencode: AgentStarter, room: Room, opencode: OpencodeServe
) -> None:
    async with start_opencode():
        await room.say("please run the proof command")
        token = await room.approval_token("bash")
        await room.say(f"/decline {token}")
        await room.wait_text(lambda t: f"Approval `{token}` resolved as `decline`" in t)
        # The rejection goes back to the model with a note, so it answers the room.
        reply = await room.wait_text(lambda t: "I did not run the proof command" in t)
    assert "declined" in reply
    assert not (opencode.folder / "proof.txt").exists()


async def test_a_restarted_agent_keeps_the_same_session(
    start_opencode: AgentStarter, room: Room, fake: FakeModel
) -> None:
    await resumes_the_same_session(start_opencode, room, fake, KEY)


async def test_bad_credentials_are_answered_once_in_words(
    start_opencode: AgentStarter, room: Room, fake: FakeModel
) -> None:
    refusal = Failure(401, "Incorrect API key provided")
    error = await bad_credentials_errors(start_opencode, room, fake, refusal)
    assert error.startswith("OpenCode turn failed: ") and "API key" in error


async def test_no_server_is_answered_once_in_words(band_serve: Any, room: Room) -> None:
    from e2e_support import free_port

    url = f"http://127.0.0.1:{free_port()}"
    build = lambda: OpencodeAdapter(OpencodeAdapterConfig(base_url=url))  # noqa: E731
    async with agent_starter(band_serve, build)():
        await room.ask("hello", status="failed")
        errors = [e["content"] for e in await room.events("error")]
    assert len(errors) == 1
    assert errors[0].startswith(
        f"The OpenCode server could not start: no OpenCode server answers at {url}"
    )
    assert "npm install -g opencode-ai@1.18.33" in errors[0]


async def test_status_and_help_describe_the_room(start_opencode: AgentStarter, room: Room) -> None:
    before, after, _ = await status_help_texts(start_opencode, room)
    assert "Session: none yet." in before
    assert "connected." in after and "Session: `ses_" in after
    assert "Approval mode: `manual`" in after


def test_configuration_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCODE_BASE_URL", "http://127.0.0.1:9999")
    monkeypatch.setenv("OPENCODE_MODEL_ID", "m")
    monkeypatch.setenv("OPENCODE_PROVIDER_ID", "p")
    config = OpencodeAdapterConfig(model_id="explicit")
    assert config.base_url == "http://127.0.0.1:9999"
    assert (config.provider_id, config.model_id) == ("p", "explicit")
    with pytest.raises(ValueError, match="provider_id and model_id together"):
        monkeypatch.delenv("OPENCODE_PROVIDER_ID")
        OpencodeAdapterConfig(model_id="m")


@journey
async def test_journey_timings(start_opencode: AgentStarter, room: Room) -> None:
    await timed_journey("OpencodeAdapter", start_opencode, room, approve_command("bash"))
