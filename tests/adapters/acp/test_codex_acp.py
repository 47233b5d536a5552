"""ACPClientAdapter with a real ACP agent from the registries: ``@zed-industries/codex-acp``
(npm, pinned; ``scripts/test`` installs it into ``.tools/codex-acp``), offline.

codex-acp embeds Codex and takes Codex's ``-c`` settings, so it answers from the same fake
Responses endpoint as the Codex tests, with ``CODEX_HOME`` in a temporary folder. Band's
tools reach it through the adapter's loopback MCP server; its permission requests are
relayed to the room and answered with ``/approve`` or ``/decline``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.testing import FakeModel, ModelRequest, ToolCall

from ..band_serve import Room
from ..codex.codex_support import ROOT, codex_env
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

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

CODEX_ACP_VERSION = "0.16.0"
INSTALLED = ROOT / ".tools" / "codex-acp" / "node_modules" / ".bin" / "codex-acp"
ESCALATED = {"cmd": PROOF, "sandbox_permissions": "require_escalated", "justification": "proof"}


def codex_acp_binary() -> Path:
    path = Path(os.environ.get("BAND_CODEX_ACP_BIN") or INSTALLED)
    if path.exists():
        return path
    message = f"codex-acp not installed at {path} (scripts/test installs it from npm)"
    if os.environ.get("BAND_REQUIRE_CODEX_ACP") == "1":
        pytest.fail(message)
    pytest.skip(message)


def last_call(request: ModelRequest) -> str | None:
    calls = [
        str(item.get("name"))
        for item in request.body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call"
    ]
    return calls[-1] if calls else None


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel(proof_policy(ToolCall("exec_command", ESCALATED), last_call))


@pytest.fixture
def start_agent(
    band_serve: Any, model_url: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> AgentStarter:
    binary = codex_acp_binary()
    home = tmp_path_factory.mktemp("codex-acp-home")
    settings = [
        'model_provider="band-fake"',
        'model_providers.band-fake.name="Band fake model"',
        f'model_providers.band-fake.base_url="{model_url}"',
        'model_providers.band-fake.wire_api="responses"',
        "model_providers.band-fake.request_max_retries=0",
        "model_providers.band-fake.stream_max_retries=0",
        'model="fake-model"',
        'approval_policy="on-request"',
    ]
    argv = [str(binary)]
    for setting in settings:
        argv += ["-c", setting]

    def build(**fields: Any) -> ACPClientAdapter:
        fields.setdefault("approval_mode", "manual")
        config = ACPClientAdapterConfig(command=argv, env=codex_env(home), **fields)
        return ACPClientAdapter(config, workspace_for_room=workspaces(tmp_path))

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_the_band_mcp_server(
    start_agent: AgentStarter, room: Room
) -> None:
    async with start_agent():
        await room.say("hello Codex over ACP")
        reply = await room.wait_text(lambda t: "You said: hello Codex over ACP" in t)
        calls = [json.loads(e["content"]) for e in await room.events("tool_call")]
        tasks = await room.wait_task(lambda t: t["content"] == "ACP client session")
    assert "Hi Alice!" in reply
    assert any(c["name"] == "band_send_message" for c in calls)
    assert tasks[-1]["metadata"]["acp_client_session_id"]


async def test_approve_lets_codex_acp_run_the_command(
    start_agent: AgentStarter, room: Room
) -> None:
    async with start_agent():
        await room.say("please run the proof command")
        token = await room.approval_token("permission")
        assert not (room.workspace / "proof.txt").exists()
        await room.say(f"/approve {token}")
        reply = await room.wait_text(lambda t: "I ran the proof command" in t)
    assert "band-proof" in reply
    assert (room.workspace / "proof.txt").read_text().strip() == "band-proof"


async def test_decline_keeps_codex_acp_from_running_it(
    start_agent: AgentStarter, room: Room
) -> None:
    # codex-acp's only reject option is Codex's "abort": the turn ends there.
    async with start_agent():
        await room.say("please run the proof command")
        token = await room.approval_token("permission")
        await room.say(f"/decline {token}")
        await room.wait_text(lambda t: "The agent stopped early (cancelled)." in t)
        texts = await room.texts()
    assert not (room.workspace / "proof.txt").exists()
    assert f"Approval `{token}` resolved as `decline`." in " ".join(texts)
    assert not any("I ran the proof command" in t for t in texts)


@journey
async def test_journey_timings(start_agent: AgentStarter, room: Room) -> None:
    await timed_journey(
        "ACPClientAdapter (codex-acp)", start_agent, room, approve_command("permission")
    )
