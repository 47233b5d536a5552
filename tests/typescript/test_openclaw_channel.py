"""The OpenClaw channel (``openclaw-channel/``) in the real OpenClaw gateway (npm ``openclaw``,
pinned, on Node 24 from ``.tools/node``), fully offline: its agent's model is
``band.testing``'s fake OpenAI endpoint, and our platform runs as ``band serve``.

A person mentions the agent in a Band room; the channel (openband's ``BandLink`` and
``AgentRuntime``) hands the message to OpenClaw's agent, whose model calls the channel's
``band_get_participants`` tool; the tool's answer goes back to the model, which replies; the
reply is posted in the room, mentioning the person, and the message is acknowledged. The
model was given Band's instructions (the channel's agent prompt) and Band's tools.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from band.testing import FakeModel, ModelRequest, Reply, ToolCall, fake_openai_server
from e2e.e2e_support import Person, World, free_port
from integrations.support import until

from .support import (
    CHANNEL,
    NODE_BIN,
    BandServe,
    GroupChild,
    agent_texts,
    node_env,
    online,
    require_built,
    served_band,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

OPENCLAW = CHANNEL / "node_modules" / "openclaw" / "openclaw.mjs"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
QUESTION = "@OpenClaw who is in this room?"


def band_turn(request: ModelRequest) -> Reply:
    """The agent's model: asked about a Band room, it calls ``band_get_participants``, then
    answers with the participant ids the tool returned; anything else (OpenClaw's side
    requests) gets a short answer."""
    if "band_get_participants" not in request.tool_names:
        return Reply(text="ok")
    results = [t for t in request.texts("tool") if "band_get_participants" in t or UUID.search(t)]
    if results:
        ids = sorted(set(UUID.findall(results[-1])))
        return Reply(text=f"This room has {len(ids)} participants: {', '.join(ids)}.")
    if any("[Band Room:" in t for t in request.texts("user")):
        return Reply(tool_calls=(ToolCall("band_get_participants", {}),))
    return Reply(text="ok")


@pytest.fixture
def model() -> Iterator[tuple[FakeModel, str]]:
    fake = FakeModel(band_turn)
    with fake_openai_server(fake) as base_url:
        yield fake, base_url


@pytest.fixture
async def band(tmp_path: Path) -> AsyncIterator[tuple[BandServe, World, Person]]:
    async with served_band(tmp_path, "OpenClaw") as served:
        yield served


def openclaw_config(
    state: Path, port: int, model_url: str, server: BandServe, world: World
) -> Path:
    """The gateway's config: loopback, no auth, the fake model, and this channel's account."""
    config = {
        "gateway": {"mode": "local", "port": port, "bind": "loopback", "auth": {"mode": "none"}},
        "logging": {"file": str(state / "openclaw.log")},
        "agents": {"defaults": {"model": {"primary": "fake/fake-model"}}},
        # Direct tool schemas (not Tool Search's deferred catalog): the model sees band_* tools.
        "tools": {"toolSearch": False},
        "models": {
            "mode": "replace",
            "providers": {
                "fake": {
                    "baseUrl": model_url,
                    "apiKey": "fake",
                    "api": "openai-completions",
                    "models": [
                        {
                            "id": "fake-model",
                            "name": "Fake model",
                            "reasoning": False,
                            "input": ["text"],
                            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                            "contextWindow": 128000,
                            "maxTokens": 4096,
                        }
                    ],
                }
            },
        },
        "plugins": {
            "load": {"paths": [str(CHANNEL)]},
            "entries": {"band": {"enabled": True}},
        },
        "channels": {
            "band": {
                "accounts": {
                    "default": {
                        "apiKey": world.agent_key,
                        "agentId": world.agent_id,
                        "wsUrl": server.ws_url,
                        "restUrl": server.url,
                        "stateDir": str(state / "band"),
                    }
                }
            }
        },
    }
    path = state / "openclaw.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def start_gateway(tmp_path: Path, config: Path, port: int) -> GroupChild:
    state = config.parent
    env = node_env(
        HOME=str(tmp_path / "home"),
        OPENCLAW_STATE_DIR=str(state),
        OPENCLAW_CONFIG_PATH=str(config),
        OPENCLAW_DISABLE_BONJOUR="1",
        OPENCLAW_NO_AUTO_UPDATE="1",
        # Offline: anything that is not loopback goes to a dead proxy and fails at once.
        HTTP_PROXY="http://127.0.0.1:9",
        HTTPS_PROXY="http://127.0.0.1:9",
        ALL_PROXY="http://127.0.0.1:9",
    )
    (tmp_path / "home").mkdir(exist_ok=True)
    argv = [str(NODE_BIN / "node"), str(OPENCLAW), "gateway", "run", "--port", str(port)]
    return GroupChild.start("openclaw", argv, cwd=tmp_path, env=env, log_dir=tmp_path)


async def test_a_mention_reaches_openclaw_and_its_answer_with_a_tool_call_reaches_the_room(
    tmp_path: Path,
    band: tuple[BandServe, World, Person],
    model: tuple[FakeModel, str],
) -> None:
    require_built(CHANNEL / "dist" / "index.js", OPENCLAW)
    server, world, person = band
    fake, model_url = model
    state = tmp_path / "openclaw-state"
    state.mkdir()
    port = free_port()
    gateway = start_gateway(tmp_path, openclaw_config(state, port, model_url, server, world), port)
    try:
        await until(
            lambda: online(person, world.room_id, world.agent_id),
            within=240,
            what="the Band channel connected",
            diagnostics=gateway.diagnostics,
        )
        await person.say(world.room_id, QUESTION, world.agent_id)

        replies = await until(
            lambda: agent_texts(person, world.room_id, world.agent_id),
            within=180,
            what="the agent's reply",
            diagnostics=gateway.diagnostics,
        )
        text = replies[0]["content"]
        offered = " / ".join(",".join(sorted(r.tool_names)) for r in fake.requests)
        tool_texts = [t for r in fake.requests for t in r.texts("tool")]
        assert world.person_id in text and world.agent_id in text, (text, tool_texts, offered)
        mentions = (replies[0].get("metadata") or {}).get("mentions") or []
        assert [m["id"] for m in mentions] == [world.person_id]
        kept = json.loads((state / "band" / "default.last-senders.json").read_text())
        assert kept == {world.room_id: {"id": world.person_id, "handle": "alice"}}, kept
        turns = [r for r in fake.requests if "band_get_participants" in r.tool_names]
        assert turns, "the model was offered Band's tools"
        assert "## Band rooms" in turns[0].system, "Band's instructions are in the agent prompt"
        assert any(world.agent_id in t for r in turns for t in r.texts("tool"))
        agent_http = httpx.AsyncClient(
            base_url=server.url, headers={"X-API-Key": world.agent_key}, timeout=10
        )
        async with agent_http:
            path = f"/api/v1/agent/chats/{world.room_id}/messages/next"

            async def acknowledged() -> bool:
                return (await agent_http.get(path)).status_code == 204

            await until(
                acknowledged,
                within=60,
                what="the mention acknowledged",
                diagnostics=gateway.diagnostics,
            )
    finally:
        gateway.stop()
