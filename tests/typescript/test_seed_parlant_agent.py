"""The Parlant page's "Connect from TypeScript": its ``agent.ts`` with only the import specifier
changed (``"@band-ai/sdk"`` to ``"openband"``), run with ``npx tsx agent.ts`` against ``band
serve`` and a Parlant server started as the page's ``parlant_server.py`` (in the Parlant
environment, offline: ``parlant_seed_server.py`` swaps in the fake NLP service the Python
Parlant tests use). A mention gets the Parlant agent's guideline-driven answer, which mentions
the sender; Ctrl+C stops the agent cleanly. Without ``PARLANT_AGENT_ID`` the adapter creates
``band-<agent name>`` on the server, never posts Parlant's preamble, and deletes the agent
when it stops.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from e2e.e2e_support import Person, World, free_port
from integrations.support import Child, add_room, until

from . import parlant_seed_server as seed_server
from .support import (
    ROOT,
    SDK,
    SEED_PROJECT,
    BandServe,
    GroupChild,
    agent_texts,
    node_env,
    npx,
    online,
    require_built,
    served_band,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

PARLANT_PYTHON = ROOT / ".venvs" / "parlant" / "bin" / "python"
QUESTION = "@Parlant Agent how do I reset my password?"


@pytest.fixture(scope="module")
def parlant_python() -> Path:
    """The project's Parlant environment, built (or waited for) by ``scripts/test-adapter``."""
    require_built(SDK / "dist" / "index.js", SEED_PROJECT / "node_modules" / ".bin" / "tsx")
    done = subprocess.run(
        [str(ROOT / "scripts" / "test-adapter"), "parlant", "--build-only"],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0 or not PARLANT_PYTHON.exists():
        pytest.fail(f"the Parlant environment could not be built:\n{done.stdout}\n{done.stderr}")
    if "SKIPPED:" in done.stderr and os.environ.get("BAND_REQUIRE_TS") != "1":
        pytest.skip(done.stderr.strip().splitlines()[-1])
    return PARLANT_PYTHON


@pytest.fixture(scope="module")
def parlant(
    parlant_python: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, str]]:
    """The seed's Parlant server: ``(its URL, the agent id it printed, the preamble agent)``."""
    logs = tmp_path_factory.mktemp("parlant")
    api, tools = free_port(), free_port()
    env = {**node_env(), "PYTHONUNBUFFERED": "1"}
    child = Child.start(
        "parlant",
        [
            str(parlant_python),
            seed_server.__file__,
            str(SEED_PROJECT / "parlant_server.py"),
            str(api),
            str(tools),
        ],
        cwd=logs,
        env=env,
        log_dir=logs,
    )
    url = f"http://127.0.0.1:{api}"
    try:
        import asyncio

        async def ready() -> tuple[str, str]:
            await child.wait_log("PARLANT_AGENT_ID=", within=240)
            printed = dict(
                line.split("=", 1) for line in child.log_text().splitlines() if "_ID=" in line
            )

            async def serving() -> bool:
                try:
                    async with httpx.AsyncClient(timeout=2) as http:
                        return (await http.get(f"{url}/agents")).status_code == 200
                except httpx.HTTPError:
                    return False

            await until(serving, within=120, what="Parlant serving", diagnostics=child.diagnostics)
            return printed["PARLANT_AGENT_ID"].strip(), printed["PREAMBLE_AGENT_ID"].strip()

        yield (url, *asyncio.run(ready()))
    finally:
        child.stop()


@pytest.fixture
async def band(tmp_path: Path) -> AsyncIterator[tuple[BandServe, World, Person]]:
    async with served_band(tmp_path, "Parlant Agent") as served:
        yield served


def typescript_project(tmp_path: Path, world: World) -> Path:
    """``band-parlant-ts`` as the page builds it: agent.ts, agent_config.yaml, its packages."""
    project = tmp_path / "band-parlant-ts"
    project.mkdir()
    for name in ("agent.ts", "package.json"):
        shutil.copyfile(SEED_PROJECT / name, project / name)
    (project / "node_modules").symlink_to(SEED_PROJECT / "node_modules")
    entry = f"  agent_id: {json.dumps(world.agent_id)}\n  api_key: {json.dumps(world.agent_key)}\n"
    config = f"my_agent:\n{entry}"
    (project / "agent_config.yaml").write_text(config, encoding="utf-8")
    return project


def start_agent(
    project: Path, server: BandServe, parlant_url: str, agent_id: str | None
) -> GroupChild:
    env = node_env(
        BAND_REST_URL=server.url,
        BAND_WS_URL=server.ws_url,
        PARLANT_ENVIRONMENT=parlant_url,
        BAND_LOG_LEVEL="info",
    )
    if agent_id is not None:
        env["PARLANT_AGENT_ID"] = agent_id
    return GroupChild.start(
        "agent-ts", [npx(), "tsx", "agent.ts"], cwd=project, env=env, log_dir=project
    )


async def parlant_messages(http: httpx.AsyncClient, agent_id: str) -> list[str]:
    """Every AI-agent message of ``agent_id``'s sessions on the Parlant server."""
    texts: list[str] = []
    for session in (await http.get("/sessions", params={"agent_id": agent_id})).json():
        events = await http.get(f"/sessions/{session['id']}/events", params={"kinds": "message"})
        texts += [e["data"]["message"] for e in events.json() if e["source"] == "ai_agent"]
    return texts


async def wait_online(agent: GroupChild, person: Person, world: World) -> None:
    await until(
        lambda: online(person, world.room_id, world.agent_id),
        within=60,
        what="agent.ts online",
        diagnostics=agent.diagnostics,
    )


async def ask(
    agent: GroupChild, person: Person, room_id: str, agent_id: str
) -> list[dict[str, Any]]:
    """Mention the agent with the page's question; its replies in the room."""
    await person.say(room_id, QUESTION, agent_id)
    replies: list[dict[str, Any]] = await until(
        lambda: agent_texts(person, room_id, agent_id),
        within=90,
        what="the reply",
        diagnostics=agent.diagnostics,
    )
    return replies


def stop(agent: GroupChild) -> None:
    """Ctrl+C, as the page says: the agent stops cleanly (npx itself then ends by SIGINT)."""
    code = agent.interrupt()
    assert code in (0, -signal.SIGINT), agent.diagnostics()
    assert "Signal received; stopping" in agent.log_text()
    assert "Platform runtime stopped" in agent.log_text(), agent.diagnostics()


async def test_seed_agent_ts_answers_a_mention_with_the_parlant_agents_reply(
    tmp_path: Path, parlant: tuple[str, str], band: tuple[BandServe, World, Person]
) -> None:
    parlant_url, parlant_agent, _ = parlant
    server, world, person = band
    agent = start_agent(typescript_project(tmp_path, world), server, parlant_url, parlant_agent)
    try:
        await wait_online(agent, person, world)
        replies = await ask(agent, person, world.room_id, world.agent_id)
        assert len(replies) == 1
        assert replies[0]["content"].endswith(seed_server.REPLY), replies[0]
        mentions = (replies[0].get("metadata") or {}).get("mentions") or []
        assert [m["id"] for m in mentions] == [world.person_id], "the reply mentions the sender"
        assert f"parlant_agent_id={parlant_agent}" in agent.log_text()
        stop(agent)
    finally:
        agent.kill9()


async def test_without_an_agent_id_the_adapter_creates_its_agent_and_deletes_it_when_stopped(
    tmp_path: Path, parlant: tuple[str, str], band: tuple[BandServe, World, Person]
) -> None:
    parlant_url, seed_agent, _ = parlant
    server, world, person = band
    agent = start_agent(typescript_project(tmp_path, world), server, parlant_url, None)
    try:
        await wait_online(agent, person, world)
        async with httpx.AsyncClient(base_url=parlant_url, timeout=10) as parlant_http:
            names = {a["name"]: a for a in (await parlant_http.get("/agents")).json()}
            created = names.get("band-Parlant Agent")
            assert created is not None, names
            assert created["description"].startswith(
                "You are Parlant Agent, End-to-end test agent."
            )
            room_id = await add_room(person, "Second", world.agent_id)
            replies = await ask(agent, person, room_id, world.agent_id)
            assert [m["content"].endswith(seed_server.FALLBACK) for m in replies] == [True]
            stop(agent)
            remaining = {a["name"] for a in (await parlant_http.get("/agents")).json()}
            assert "band-Parlant Agent" not in remaining
            assert seed_agent in {a["id"] for a in (await parlant_http.get("/agents")).json()}
    finally:
        agent.kill9()


async def test_parlants_preamble_is_never_posted(
    tmp_path: Path, parlant: tuple[str, str, str], band: tuple[BandServe, World, Person]
) -> None:
    """An agent with Parlant's default policy says a preamble first; only the answer reaches
    the room (the page warns that @band-ai/sdk 0.6.0 posts the preamble)."""
    parlant_url, _, preamble_agent = parlant
    server, world, person = band
    agent = start_agent(typescript_project(tmp_path, world), server, parlant_url, preamble_agent)
    try:
        await wait_online(agent, person, world)
        replies = await ask(agent, person, world.room_id, world.agent_id)
        assert [m["content"].endswith(seed_server.FALLBACK) for m in replies] == [True]
        async with httpx.AsyncClient(base_url=parlant_url, timeout=10) as parlant_http:
            said = await parlant_messages(parlant_http, preamble_agent)
        assert said[0] == seed_server.PREAMBLE, said  # Parlant did say it first...
        timeline = [m["content"] for m in await person.timeline(world.room_id)]
        assert not any(seed_server.PREAMBLE in c for c in timeline), timeline  # ...never posted
        stop(agent)
    finally:
        agent.kill9()
