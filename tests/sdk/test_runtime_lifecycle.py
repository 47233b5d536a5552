"""The seed's run script shape: ``Agent.from_config(name, adapter=...)`` then ``await run()``."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest
from runtime_support import EchoAdapter, Person, until, until_status

from band.runtime.agent import Agent
from band.runtime.lock import InstanceLock

pytestmark = pytest.mark.timeout(60)


async def test_from_config_and_run_serve_until_sigint(
    live_server: Any,
    seeded: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    (tmp_path / "agent_config.yaml").write_text(
        f"my_agent:\n  agent_id: {seeded.agent_id}\n  api_key: {seeded.agent_key}\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BAND_WS_URL", live_server.ws_url)
    monkeypatch.setenv("BAND_REST_URL", live_server.url)
    adapter = EchoAdapter()
    agent = Agent.from_config("my_agent", adapter=adapter)
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        alice = Person(http, seeded.user_id)
        room = await alice.create_room("Seed", seeded.agent_id)
        with caplog.at_level(logging.INFO, logger="band"):
            running = asyncio.create_task(agent.run())
            await until(lambda: agent.is_running)
            message_id = await alice.say(room, "hi", seeded.agent_id)
            await until_status(alice, room, message_id, seeded.agent_id, "processed")
            os.kill(os.getpid(), signal.SIGINT)
            await asyncio.wait_for(running, 10)
    assert "Agent started: Echo (band-sdk 6.0.1)" in caplog.messages
    assert "Agent stopped: Echo (graceful=True)" in caplog.messages
    assert adapter.cleaned == [room]
    lock = InstanceLock(seeded.agent_id)
    lock.acquire()  # released at stop
    lock.release()


async def test_an_agent_without_description_refuses_to_start(live_server: Any, seeded: Any) -> None:
    async with live_server.platform.db.write() as session:
        from band_server.store.models import Agent as AgentRow

        row = await session.get(AgentRow, seeded.agent_id)
        row.description = ""
    agent = Agent.create(
        adapter=EchoAdapter(),
        agent_id=seeded.agent_id,
        api_key=seeded.agent_key,
        ws_url=live_server.ws_url,
        rest_url=live_server.url,
    )
    with pytest.raises(ValueError, match=f"^Agent {seeded.agent_id} has no description$"):
        await agent.start()
    assert not agent.is_running
