"""CopilotSDKAdapter end to end: ``band serve``, the Copilot SDK driving the real Copilot CLI
(npm ``@github/copilot``, pinned, in ``.tools/copilot``) in its offline mode, with the
adapter's ``provider=`` ("BYOK") on the fake OpenAI-compatible endpoint.

What the room sees: the answer to a mention through Band's tool (a native Copilot tool run
in-process, paired tool events), the same Copilot session after a restart, a provider that
refuses the key answered once in words, and ``/status``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from runtime_support import until

from band.adapters import CopilotSDKAdapter, CopilotSDKAdapterConfig
from band.testing import Failure, FakeModel

from ..acp.test_copilot_acp import copilot_binary, copilot_env
from ..band_serve import Room
from ..coding_e2e import AgentStarter, agent_starter

pytest.importorskip("copilot", reason="the Copilot SDK is not installed (extra copilot-sdk)")
pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

KEY = "copilot_session_id"


@pytest.fixture
def fake() -> FakeModel:
    return FakeModel()


@pytest.fixture
def start_copilot(
    band_serve: Any, model_url: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> AgentStarter:
    from copilot import CopilotClient, RuntimeConnection
    from copilot.session import ProviderConfig

    binary, home = copilot_binary(), tmp_path_factory.mktemp("copilot-sdk-home")

    def client() -> Any:
        connection = RuntimeConnection.for_stdio(path=str(binary))
        env = {**copilot_env(home, model_url), "PATH": "/usr/bin:/bin"}
        return CopilotClient(
            connection=connection,
            env=env,
            use_logged_in_user=False,
            working_directory=str(tmp_path),
        )

    def build(**fields: Any) -> CopilotSDKAdapter:
        provider = ProviderConfig(type="openai", base_url=model_url, api_key="sk-fake")
        config = CopilotSDKAdapterConfig(model="fake-model", **fields)
        return CopilotSDKAdapter(config, client_factory=client, provider=provider)

    return agent_starter(band_serve, build)


async def test_a_mention_is_answered_through_a_native_band_tool(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_copilot():
        await room.say("hello Copilot")
        reply = await room.wait_text(lambda t: "You said: hello Copilot" in t)
        calls = await until(lambda: room.events("tool_call"))
        results = await until(lambda: room.events("tool_result"))
        tasks = await room.wait_task(lambda t: KEY in (t["metadata"] or {}))
    assert "Hi Alice!" in reply
    call, result = json.loads(calls[0]["content"]), json.loads(results[0]["content"])
    assert call["name"] == result["name"] == "band_send_message"
    assert call["tool_call_id"] == result["tool_call_id"]
    assert any(t["content"] == "Copilot SDK session" for t in tasks)
    # Band's tools only: Copilot's shell and file tools are off.
    assert all(name.startswith("band_") for name in fake.requests[-1].tool_names)


async def test_a_restarted_agent_resumes_the_same_session(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    async with start_copilot():
        await room.ask("remember the number 7")
    fake.reset()
    async with start_copilot():
        await room.ask("what was it?")
        tasks = await room.events("task")
    assert len({t["metadata"][KEY] for t in tasks if KEY in t["metadata"]}) == 1
    users = fake.requests[-1].texts("user")
    assert any("remember the number 7" in u for u in users[:-1])


async def test_bad_credentials_are_answered_once_in_words(
    start_copilot: AgentStarter, room: Room, fake: FakeModel
) -> None:
    fake.policy = lambda request: Failure(401, "Incorrect API key provided")
    async with start_copilot():
        await room.ask("hello", status="failed")
        errors = [e["content"] for e in await room.events("error")]
    assert len(errors) == 1, errors


async def test_status_and_help(start_copilot: AgentStarter, room: Room) -> None:
    async with start_copilot():
        await room.ask("/status")
        await room.ask("hello")
        await room.ask("/status")
        await room.ask("/help")
        texts = await room.texts()
    assert "Session: none yet." in texts[0]
    assert "Copilot runtime: connected." in texts[2] and "Session: `band-" in texts[2]
    assert "`/status`" in texts[3]
