"""The seed page's adapter and run script, unchanged, as a real agent process.

`tests/e2e/seed/chat_adapter.py` and `run_agent.py` are byte-for-byte copies of the code on
the "Create a Framework Adapter" page. They run with the project's interpreter against our
platform on loopback, with the real `openai` client pointed at our fake endpoint, exactly
as the page says: a person mentions the agent, the reply reaches the room and the timeline
shows the `tool_call` / `tool_result` pair of the `band_send_message` call.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import AgentChild, Person, seed_agent_env, until

from band.testing import FakeModel, fake_openai_server

pytest.importorskip("openai")
pytest.importorskip("dotenv")

pytestmark = [pytest.mark.slow, pytest.mark.timeout(60)]

SEED_DIR = Path(__file__).resolve().parent / "seed"
SEED_FILES = ("chat_adapter.py", "run_agent.py")


@pytest.fixture
def fake_model() -> Iterator[tuple[FakeModel, str]]:
    fake = FakeModel()
    with fake_openai_server(fake) as base_url:
        yield fake, base_url


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    headers = {"X-API-Key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers, timeout=10) as http:
        yield Person(http, seeded.user_id)


def _workdir(tmp_path: Path, agent_id: str, api_key: str) -> Path:
    """A folder like the reader's: the two seed files and `agent_config.yaml`."""
    workdir = tmp_path / "seed-agent"
    workdir.mkdir()
    for name in SEED_FILES:
        shutil.copyfile(SEED_DIR / name, workdir / name)
    config = f"my_agent:\n  agent_id: {json.dumps(agent_id)}\n  api_key: {json.dumps(api_key)}\n"
    (workdir / "agent_config.yaml").write_text(config, encoding="utf-8")
    return workdir


async def test_seed_agent_answers_a_mention_and_reports_its_tool_call(
    tmp_path: Path,
    live_server: Any,
    seeded: Any,
    alice: Person,
    fake_model: tuple[FakeModel, str],
) -> None:
    fake, base_url = fake_model
    r = await alice.http.post("/api/v1/me/chats", json={"chat": {"title": "Seed"}})
    assert r.status_code in (200, 201), r.text
    room_id = str(r.json()["data"]["id"])
    body = {"participant": {"participant_id": seeded.agent_id}}
    r = await alice.http.post(f"/api/v1/me/chats/{room_id}/participants", json=body)
    assert r.status_code in (200, 201), r.text

    workdir = _workdir(tmp_path, seeded.agent_id, seeded.agent_key)
    env = seed_agent_env(live_server.url, live_server.ws_url, base_url, tmp_path)
    agent = AgentChild.start(
        workdir / "run_agent.py", cwd=workdir, env=env, log_path=tmp_path / "agent.log"
    )
    try:
        await agent.wait_log("Agent started: Echo (band-sdk 6.0.1)")
        assert "band.agent" in agent.log_text()

        mention_id = await alice.say(room_id, f"@{seeded.agent_handle} hello seed", seeded.agent_id)

        async def finished() -> list[dict[str, Any]] | None:
            timeline = await alice.timeline(room_id)
            kinds = {m["message_type"] for m in timeline if m["sender_id"] == seeded.agent_id}
            return timeline if {"text", "tool_call", "tool_result"} <= kinds else None

        timeline = await until(
            finished, within=20, what="the agent's reply", diagnostics=agent.diagnostics
        )

        mine = [m for m in timeline if m["sender_id"] == seeded.agent_id]
        assert [m["message_type"] for m in mine] == ["tool_call", "text", "tool_result"], mine
        call_event, reply, result_event = mine
        order = [m["id"] for m in timeline]
        assert order.index(mention_id) < order.index(call_event["id"])

        assert "hello seed" in reply["content"]
        mentioned = [m["id"] for m in (reply.get("metadata") or {}).get("mentions") or []]
        assert seeded.user_id in mentioned, reply

        call = json.loads(call_event["content"])
        result = json.loads(result_event["content"])
        assert call["name"] == result["name"] == "band_send_message"
        assert call["tool_call_id"] == result["tool_call_id"]
        assert call["tool_call_id"]
        assert set(call) == {"name", "args", "tool_call_id"}
        assert set(result) == {"name", "output", "tool_call_id"}
        # the platform tool puts the mention markup in front of the model's text
        assert reply["content"].endswith(call["args"]["content"]), (call, reply)
        assert not result["output"].startswith("Error")

        assert fake.requests, "the seed adapter never called the fake endpoint"
        assert fake.requests[0].headers["authorization"] == "Bearer fake"
        assert "band_send_message" in fake.requests[0].tool_names
        assert {r.model for r in fake.requests} == {"gpt-5.4-mini"}

        code = await agent.interrupt(within=10)
        assert code == 0, agent.diagnostics()
        assert "Traceback" not in agent.log_text(), agent.diagnostics()
    finally:
        agent.close()
