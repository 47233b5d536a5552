"""CopilotACPAdapter on the real GitHub Copilot CLI (npm ``@github/copilot``, pinned;
``scripts/test`` installs it into ``.tools/copilot``), offline.

The CLI runs in its documented offline mode: ``COPILOT_OFFLINE=true`` with a custom model
provider ("BYOK": ``COPILOT_PROVIDER_BASE_URL`` at the fake OpenAI-compatible endpoint,
``COPILOT_MODEL``), so it needs no GitHub account and reaches nothing but loopback. Band's
tools reach it through the adapter's MCP server; its permission requests are relayed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from runtime_support import until

from band.adapters import CopilotACPAdapter, CopilotACPAdapterConfig
from band.testing import Failure, FakeModel, ModelRequest, ToolCall

from ..band_serve import Room
from ..codex.codex_support import ROOT
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
    workspaces,
)

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

INSTALLED = ROOT / ".tools" / "copilot" / "node_modules" / ".bin" / "copilot"
DEAD_PROXY = "http://127.0.0.1:9"
KEY = "acp_client_session_id"


def copilot_binary() -> Path:
    path = Path(os.environ.get("BAND_COPILOT_BIN") or INSTALLED)
    if path.exists():
        return path
    message = f"copilot not installed at {path} (scripts/test installs @github/copilot)"
    if os.environ.get("BAND_REQUIRE_COPILOT") == "1":
        pytest.fail(message)
    pytest.skip(message)


def copilot_env(home: Path, model_url: str) -> dict[str, str]:
    """The Copilot CLI offline on a custom provider, its state under ``home``."""
    return {
        "HOME": str(home),
        "COPILOT_HOME": str(home / ".copilot"),
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": model_url,
        "COPILOT_PROVIDER_API_KEY": "sk-fake",
        "COPILOT_MODEL": "fake-model",
        "COPILOT_AUTO_UPDATE": "false",
        "HTTP_PROXY": DEAD_PROXY,
        "HTTPS_PROXY": DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
    }


def last_call(request: ModelRequest) -> str | None:
    calls = [
        call["function"]["name"]
        for message in request.body.get("messages") or []
        for call in message.get("tool_calls") or []
    ]
    return calls[-1] if calls else None


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(
        proof_policy(ToolCall("bash", {"command": PROOF, "description": "proof"}), last_call)
    )


@pytest.fixture
def start_copilot(
    band_serve: Any, model_url: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> AgentStarter:
    binary = copilot_binary()
    home = tmp_path_factory.mktemp("copilot-home")

    def build(**fields: Any) -> CopilotACPAdapter:
        fields.setdefault("approval_mode", "manual")
        config = CopilotACPAdapterConfig(
            command=[str(binary), "--acp"], env=copilot_env(home, model_url), **fields
        )
        return CopilotACPAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_the_band_mcp_server(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_copilot():
        await room.say("hello Copilot")
        reply = await room.wait_text(lambda t: "You said: hello Copilot" in t)
        tasks = await room.wait_task(lambda t: KEY in (t["metadata"] or {}))
        calls = [json.loads(e["content"]) for e in await room.events("tool_call")]
    assert "Hi Alice!" in reply
    assert any(c["name"] == "band_send_message" for c in calls)
    assert any(t["content"] == "ACP client session" for t in tasks)
    assert any(r.offered("band_send_message") for r in fake.requests)


async def test_approve_lets_copilot_run_the_command(
    start_copilot: AgentStarter, room: Room
) -> None:
    async with start_copilot():
        await room.say("please run the proof command")
        token = await room.approval_token("permission")
        assert not (room.workspace / "proof.txt").exists()
        await room.say(f"/approve {token}")
        reply = await room.wait_text(lambda t: "I ran the proof command" in t)
    assert "band-proof" in reply
    assert (room.workspace / "proof.txt").read_text().strip() == "band-proof"


async def test_decline_keeps_the_command_from_running(
    start_copilot: AgentStarter, room: Room
) -> None:
    async with start_copilot():
        await room.say("please run the proof command")
        token = await room.approval_token("permission")
        await room.say(f"/decline {token}")
        await room.wait_text(lambda t: f"Approval `{token}` resolved as `decline`" in t)

        async def turn_ended() -> bool:  # Copilot ends its turn on a rejected permission
            said = any("I did not run the proof command" in t for t in await room.texts())
            return said or bool(await room.events("error"))

        await until(turn_ended, limit=60)
    assert not (room.workspace / "proof.txt").exists()


async def test_a_restarted_agent_loads_the_same_session(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    await resumes_the_same_session(start_copilot, room, fake, KEY)


async def test_bad_credentials_are_answered_once_in_words(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    refusal = Failure(401, "Incorrect API key provided")
    error = await bad_credentials_errors(start_copilot, room, fake, refusal)
    assert error.startswith("Copilot turn failed: Authentication failed with provider"), error
    assert "(HTTP 401)" in error


async def test_status_and_help_describe_the_room(start_copilot: AgentStarter, room: Room) -> None:
    before, after, _ = await status_help_texts(start_copilot, room)
    assert "not running (it starts with the next message)" in before
    assert "running (pid " in after and "Session: `" in after


@journey
async def test_journey_timings(start_copilot: AgentStarter, room: Room) -> None:
    await timed_journey("CopilotACPAdapter", start_copilot, room, approve_command("permission"))
