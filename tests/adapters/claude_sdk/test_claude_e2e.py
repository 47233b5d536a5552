"""ClaudeSDKAdapter end to end: ``band serve``, the real ``claude`` CLI through the Claude Agent
SDK, a scripted Anthropic Messages endpoint (streamed, with tool use).

What a person in the room sees: the answer to a mention (Claude calls Band's tool over MCP),
an approval notice when Claude wants to run Bash, the command's effect after ``/approve``
(none after ``/decline``), the same Claude session after a restart, and failures in words.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runtime_support import until

from band.adapters import ClaudeSDKAdapter, ClaudeSDKAdapterConfig
from band.adapters.claude_sdk import ClaudeApprovalOptions, ClaudeCLIOptions
from band.core.exceptions import BandConfigError
from band.testing import Failure, FakeModel, ToolCall

from ..band_serve import Room
from ..coding_e2e import (
    PROOF,
    AgentStarter,
    agent_starter,
    approve_command,
    bad_credentials_errors,
    journey,
    proof_policy,
    status_help_texts,
    timed_journey,
    workspaces,
)
from .claude_support import claude_config, last_tool_use

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

KEY = "claude_sdk_session_id"
BASH = ToolCall("Bash", {"command": PROOF, "description": "write the proof file"})


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(proof_policy(BASH, last_tool_use))


@pytest.fixture
def start_claude(
    band_serve: Any, claude_bin: Path, claude_home: Path, anthropic_url: str, tmp_path: Path
) -> AgentStarter:
    def build(**fields: Any) -> ClaudeSDKAdapter:
        fields.setdefault("approvals", ClaudeApprovalOptions(mode="manual"))
        config = claude_config(claude_bin, anthropic_url, claude_home, **fields)
        return ClaudeSDKAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_the_band_mcp_server(
    start_claude: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_claude():
        await room.say("hello Claude")
        reply = await room.wait_text(lambda t: "You said: hello Claude" in t)
        calls = await until(lambda: room.events("tool_call"))
        results = await until(lambda: room.events("tool_result"))
        tasks = await room.wait_task(lambda t: "band_usage" in (t["metadata"] or {}))
    assert "Hi Alice!" in reply
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_send_message"
    assert call["tool_call_id"] == result["tool_call_id"]
    sessions = [t for t in tasks if t["content"] == "Claude SDK session"]
    assert len(sessions) == 1 and sessions[0]["metadata"]["claude_sdk_session_id"]
    # Streamed, with Band's tools in the model's own tool list (not behind ToolSearch).
    request = fake.requests[-1]
    assert request.stream and "mcp__band__band_send_message" in request.tool_names


async def test_approve_lets_claude_run_the_command(start_claude: AgentStarter, room: Room) -> None:
    async with start_claude():
        await room.say("please run the proof command")
        token = await room.approval_token("Bash")
        assert not (room.workspace / "proof.txt").exists()
        await room.say(f"/approve {token}")
        await room.wait_text(lambda t: f"Approval `{token}` resolved as `accept`" in t)
        reply = await room.wait_text(lambda t: "I ran the proof command" in t)
        results = [json.loads(e["content"]) for e in await room.events("tool_result")]
    assert "band-proof" in reply
    assert (room.workspace / "proof.txt").read_text().strip() == "band-proof"
    assert any(r["name"] == "Bash" and "band-proof" in r["output"] for r in results)


async def test_decline_keeps_the_command_from_running(
    start_claude: AgentStarter, room: Room
) -> None:
    async with start_claude():
        await room.say("please run the proof command")
        token = await room.approval_token("Bash")
        await room.say(f"/decline {token}")
        reply = await room.wait_text(lambda t: "I did not run the proof command" in t)
        await room.say(f"/approve {token}")
        late = await room.wait_text(lambda t: "no longer pending" in t)
    assert not (room.workspace / "proof.txt").exists()
    assert "declined" in reply
    assert late.endswith(
        f"Approval `{token}` is no longer pending: it was already resolved as `decline`."
    )


async def test_a_restarted_agent_resumes_the_same_session(
    start_claude: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_claude():
        await room.ask("remember the number 7")
    first = [t for t in await room.events("task") if t["content"] == "Claude SDK session"]
    fake.reset()
    async with start_claude():
        await room.ask("what was it?")
        tasks = await room.events("task")
    session = first[0]["metadata"]["claude_sdk_session_id"]
    ids = {t["metadata"][KEY] for t in tasks if KEY in t["metadata"]}
    assert ids == {session}
    users = fake.requests[0].texts("user")
    assert any("remember the number 7" in u for u in users[:-1])
    assert "what was it?" in users[-1]


async def test_bad_credentials_are_answered_once_in_words(
    start_claude: AgentStarter, room: Room, fake: FakeModel
) -> None:
    refusal = Failure(401, "invalid x-api-key", "authentication_error")
    error = await bad_credentials_errors(start_claude, room, fake, refusal)
    assert error.startswith("Claude turn failed: Invalid API key")


async def test_status_and_help_describe_the_room(start_claude: AgentStarter, room: Room) -> None:
    before, after, _ = await status_help_texts(start_claude, room)
    assert "not running (it starts with the next message)" in before
    assert "Session: none yet." in before
    assert "running (pid " in after and "Session: `" in after
    assert "Model: `claude-fake`" in after and "Approval mode: `manual`" in after


async def test_a_missing_cli_is_refused_with_the_install_command(
    claude_bin: Path, tmp_path: Path
) -> None:
    config = ClaudeSDKAdapterConfig(cli=ClaudeCLIOptions(cli_path=str(tmp_path / "claude")))
    adapter = ClaudeSDKAdapter(config)
    with pytest.raises(BandConfigError) as info:
        await adapter.on_started("Coder", "A coding agent")
    assert "\n" not in str(info.value)
    assert "npm install -g @anthropic-ai/claude-code@2.1.332" in str(info.value)


def test_bad_configurations_are_refused() -> None:
    with pytest.raises(ValueError, match="adapter-owned CLI flags"):
        ClaudeCLIOptions(extra_args={"resume": "x"})
    with pytest.raises(ValueError, match="bare flag names"):
        ClaudeCLIOptions(extra_args={"--verbose": None})
    with pytest.raises(ValueError, match="dontAsk"):
        ClaudeSDKAdapterConfig(permission_mode="dontAsk", approvals={"mode": "manual"})
    with pytest.raises(ValueError, match="wait_timeout_s must be less than turn_timeout_s"):
        ClaudeSDKAdapterConfig(turn_timeout_s=10, approvals={"mode": "manual"})
    with pytest.raises(ValueError, match=r"Leave retention\.idle_timeout_s unset\."):
        ClaudeSDKAdapterConfig(retention={"idle_timeout_s": 60})
    with pytest.raises(ValueError, match="either cwd or workspace_for_room"):
        ClaudeSDKAdapter(ClaudeSDKAdapterConfig(cwd="/srv"), workspace_for_room=lambda r: r)


@journey
async def test_journey_timings(start_claude: AgentStarter, room: Room) -> None:
    await timed_journey("ClaudeSDKAdapter", start_claude, room, approve_command("Bash"))
