"""``band demo`` end to end: a person mentions a demo agent and the agent answers in the room."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from band.testing import FakeModel, fake_openai_server
from band_server.demo import DemoOptions, run_demo
from band_server.demo_seed import DemoIdentities

pytest.importorskip("openai")
try:
    from band.runtime.agent import Agent  # noqa: F401
except ImportError:  # the SDK runtime is not there yet
    pytestmark = pytest.mark.skip(reason="band.Agent (src/band/runtime/agent.py) is missing")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


REPLY_WAIT = 30.0


async def _finished_turn(
    client: httpx.AsyncClient, room_id: str, sender_id: str
) -> list[dict[str, Any]]:
    """The room's timeline once the sender's turn is over: reply, tool_result and usage."""
    deadline = asyncio.get_running_loop().time() + REPLY_WAIT
    while asyncio.get_running_loop().time() < deadline:
        response = await client.get(
            f"/api/v1/me/chats/{room_id}/messages", params={"sort_order": "asc"}
        )
        assert response.status_code == 200, response.text
        timeline: list[dict[str, Any]] = response.json()["data"]
        kinds = {m["message_type"] for m in timeline if m["sender_id"] == sender_id}
        if {"text", "tool_result", "task"} <= kinds:
            return timeline
        await asyncio.sleep(0.2)
    raise AssertionError(f"no finished turn from {sender_id} within {REPLY_WAIT}s")


async def _mention_helper(options: DemoOptions) -> dict[str, Any]:
    """Run the demo, mention its first agent as the demo person, return the agent's reply."""
    stop = asyncio.Event()
    ready: asyncio.Future[tuple[DemoIdentities, str]] = asyncio.get_running_loop().create_future()
    demo = asyncio.create_task(
        run_demo(options, stop, on_ready=lambda ids, url: ready.set_result((ids, url)))
    )
    try:
        waiting: set[asyncio.Future[Any]] = {demo, ready}
        done, _ = await asyncio.wait(waiting, timeout=30, return_when="FIRST_COMPLETED")
        if demo in done:
            demo.result()  # raises the reason the demo ended early
        assert ready.done(), "the demo did not become ready"
        identities, url = ready.result()
        helper = identities.agents[0]
        headers = {"X-API-Key": identities.person.api_key}
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=10) as client:
            posted = await client.post(
                f"/api/v1/me/chats/{identities.room_id}/messages",
                json={"message": {"content": f"@{helper.handle} hello"}},
            )
            assert posted.status_code == 201, posted.text
            timeline = await _finished_turn(client, identities.room_id, helper.id)
        assert "error" not in {m["message_type"] for m in timeline}
        mine = [m for m in timeline if m["sender_id"] == helper.id]
        assert [m["message_type"] for m in mine] == ["tool_call", "text", "tool_result", "task"]
        return mine[1]
    finally:
        stop.set()
        await asyncio.wait_for(demo, 30)


@pytest.mark.slow
async def test_demo_agent_answers_a_mention_with_the_offline_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    reply = await _mention_helper(DemoOptions(data_dir=tmp_path / "data", port=free_port()))
    assert "You said: hello" in reply["content"]
    assert "offline scripted model" in reply["content"]


@pytest.mark.slow
async def test_demo_agents_use_the_configured_openai_endpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeModel()
    with fake_openai_server(fake) as base_url:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", base_url)
        options = DemoOptions(data_dir=tmp_path / "data", port=free_port(), model="demo-model")
        reply = await _mention_helper(options)
    assert "You said: hello" in reply["content"]
    assert fake.requests, "the demo did not call the configured endpoint"
    assert {r.model for r in fake.requests} == {"demo-model"}
    assert fake.requests[0].headers["authorization"] == "Bearer sk-test"
    assert "band_send_message" in fake.requests[0].tool_names


@pytest.mark.slow
async def test_band_demo_process_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    port = str(free_port())
    command = [sys.executable, "-m", "band_server.demo", "--port", port]
    process = await asyncio.create_subprocess_exec(
        *command,
        "--data",
        str(tmp_path / "data"),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
    )
    assert process.stdout is not None
    seen: list[str] = []
    try:
        while not any("Press Ctrl-C" in line for line in seen):
            line = await asyncio.wait_for(process.stdout.readline(), 60)
            assert line, "the demo exited early:\n" + "".join(seen)
            seen.append(line.decode())
        output = "".join(seen)
        assert f"http://127.0.0.1:{port}/" in output
        assert "offline scripted model" in output
        assert "band send --url http://127.0.0.1:" in output
        assert '"@demo/helper hello"' in output
        process.send_signal(signal.SIGINT)
        rest, _ = await asyncio.wait_for(process.communicate(), 30)
        assert process.returncode == 0, output + rest.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
