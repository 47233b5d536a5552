"""CodexAdapter end to end: ``band serve``, the real ``codex app-server``, a scripted model.

What a person in the room sees: the answer to a mention with its tool events, an approval
notice when Codex wants to run a command, the command's effect after ``/approve`` (and none
after ``/decline``), clear notices for bad tokens, and the same thread after a restart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runtime_support import until

from band.adapters import CodexAdapter, CodexAdapterConfig
from band.core.exceptions import BandConfigError
from band.testing import FakeModel, ToolCall

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
from .codex_support import codex_config, last_call_name

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

ESCALATED = {
    "cmd": PROOF,
    "sandbox_permissions": "require_escalated",
    "justification": "write the proof file",
}


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(proof_policy(ToolCall("exec_command", ESCALATED), last_call_name))


@pytest.fixture
def start_coder(
    band_serve: Any, codex_bin: Path, codex_home: Path, model_url: str, tmp_path: Path
) -> AgentStarter:
    def build(**fields: Any) -> CodexAdapter:
        fields.setdefault("approval_policy", "on-request")
        config = codex_config(codex_bin, model_url, codex_home, **fields)
        return CodexAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_with_tool_events_usage_and_the_thread(
    start_coder: Any, room: Room
) -> None:
    async with start_coder():
        await room.say("hello Codex")
        reply = await room.wait_text(lambda t: "You said: hello Codex" in t)
        calls = await until(lambda: room.events("tool_call"))
        results = await until(lambda: room.events("tool_result"))

        tasks = await room.wait_task(lambda t: "band_usage" in (t["metadata"] or {}))
    assert "Hi Alice!" in reply
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_send_message"
    assert call["tool_call_id"] == result["tool_call_id"]
    mapped = [t for t in tasks if t["content"] == "Codex thread mapped"]
    assert len(mapped) == 1 and mapped[0]["metadata"]["codex_thread_id"]


async def test_approve_runs_the_command_and_the_reply_says_so(start_coder: Any, room: Room) -> None:
    async with start_coder():
        await room.say("please run the proof command")
        token = await room.approval_token("command")
        assert not (room.workspace / "proof.txt").exists()
        await room.say(f"/approve {token}")
        await room.wait_text(lambda t: f"Approval `{token}` resolved as `accept`" in t)
        reply = await room.wait_text(lambda t: "I ran the proof command" in t)
        tool_results = [json.loads(e["content"]) for e in await room.events("tool_result")]
    assert "band-proof" in reply
    assert (room.workspace / "proof.txt").read_text().strip() == "band-proof"
    command = [r for r in tool_results if r["name"] == "command_execution"]
    assert command and "band-proof" in command[0]["output"]


async def test_decline_does_not_run_the_command(start_coder: Any, room: Room) -> None:
    async with start_coder():
        await room.say("please run the proof command")
        token = await room.approval_token("command")
        await room.say(f"/decline {token}")
        reply = await room.wait_text(lambda t: "I did not run the proof command" in t)
        await room.say(f"/approve {token}")
        late = await room.wait_text(lambda t: "no longer pending" in t)
    assert not (room.workspace / "proof.txt").exists()
    assert "band-proof" not in reply
    assert late.endswith(
        f"Approval `{token}` is no longer pending: it was already resolved as `decline`."
    )


async def test_an_unknown_token_gets_a_clear_notice(start_coder: Any, room: Room) -> None:
    async with start_coder():
        await room.say("/approve deadbeef")
        notice = await room.wait_text(lambda t: "deadbeef" in t)
    assert notice.endswith("Approval `deadbeef` is unknown or has expired. No approval is pending.")


async def test_a_restarted_agent_resumes_the_same_thread(
    start_coder: Any, room: Room, fake: FakeModel
) -> None:
    async with start_coder():
        await room.say("remember the number 7")
        await room.wait_text(lambda t: "remember the number 7" in t)
    first = [t for t in await room.events("task") if t["content"] == "Codex thread mapped"]
    fake.reset()
    async with start_coder():
        await room.say("what was it?")
        await room.wait_text(lambda t: "what was it?" in t)
        tasks = await room.events("task")
    resumed = [t for t in tasks if t["content"] == "Codex thread resumed"]
    thread = first[0]["metadata"]["codex_thread_id"]
    assert [t["metadata"]["codex_thread_id"] for t in resumed] == [thread]
    users = fake.requests[0].texts("user")
    assert any("remember the number 7" in u for u in users[:-1])
    assert "what was it?" in users[-1]


async def test_missing_codex_binary_fails_on_started_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CODEX_COMMAND", raising=False)
    adapter = CodexAdapter(CodexAdapterConfig())
    with pytest.raises(BandConfigError) as info:
        await adapter.on_started("Coder", "A coding agent")
    message = str(info.value)
    assert "\n" not in message
    assert "npm install -g @openai/codex@0.169.0" in message


async def test_a_message_sent_while_an_approval_waits_is_answered_after_it(
    start_coder: Any, room: Room
) -> None:
    async with start_coder():
        await room.say("please run the proof command")
        token = await room.approval_token("command")
        await room.say("hello meanwhile")
        queued = await room.wait_text(lambda t: "I'll take this one up when it is done" in t)
        await room.say(f"/approve {token}")
        await room.wait_text(lambda t: "You said: hello meanwhile" in t)
        texts = await room.texts()
    assert f"(waiting for approval `{token}`)" in queued
    ran = next(i for i, t in enumerate(texts) if "I ran the proof command" in t)
    answered = [i for i, t in enumerate(texts) if "You said: hello meanwhile" in t]
    assert len(answered) == 1 and answered[0] > ran


@journey
async def test_journey_timings(start_coder: AgentStarter, room: Room) -> None:
    await timed_journey("CodexAdapter", start_coder, room, approve_command("command"))
