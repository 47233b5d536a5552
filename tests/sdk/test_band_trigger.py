"""``band-trigger``: from a script, a new room with the target agent and the message in it."""

from __future__ import annotations

import asyncio
import os
import sys
from importlib.metadata import entry_points

from band.client.rest import AsyncRestClient
from band.testing import LocalPlatform


async def _trigger(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "band.cli.trigger",
        *args,
        env={**os.environ, "NO_PROXY": "127.0.0.1,localhost", **env},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    return proc.returncode or 0, out.decode(), err.decode()


def test_band_trigger_is_a_console_script() -> None:
    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "band-trigger"]
    assert script.value == "band.cli.trigger:main"


async def test_a_person_and_an_agent_trigger_an_agent() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        helper = await platform.agent(alice, "Helper")
        await platform.room(alice, echo, helper)  # so Helper and Echo are peers
        as_person = await _trigger(
            "--rest-url",
            platform.rest_url,
            "--auth-mode",
            "user",
            "--target-handle",
            echo.handle.upper().lstrip("@"),  # case and the @ do not matter
            "--message",
            "Run the daily report",
            env={"BAND_API_KEY": alice.key},
        )
        as_agent = await _trigger(
            "--target-handle",
            echo.handle,
            env={
                "BAND_API_KEY": helper.key,
                "BAND_REST_URL": platform.rest_url,
                "BAND_MESSAGE": "from the agent",
            },
        )
        status, room_id, _ = as_person
        assert status == 0, as_person
        shown = await platform.messages(alice, room_id.strip())
        agent_status, agent_room, _ = as_agent
        assert agent_status == 0, as_agent
        async with AsyncRestClient(base_url=platform.rest_url, api_key=echo.key) as client:
            for_echo = await client.agent_api_messages.list_agent_messages(agent_room.strip())
    assert [m["content"].endswith("Run the daily report") for m in shown] == [True]
    assert shown[0]["sender_id"] == alice.id
    assert [m.content.endswith("from the agent") for m in for_echo.data] == [True]
    assert for_echo.data[0].sender_id == helper.id


async def test_failures_are_one_error_line_and_exit_1() -> None:
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        missing = await _trigger(
            "--rest-url", platform.rest_url, "--message", "hi", env={"BAND_API_KEY": alice.key}
        )
        unknown = await _trigger(
            "--rest-url",
            platform.rest_url,
            "--auth-mode",
            "user",
            "--target-handle",
            "@nobody/here",
            "--message",
            "hi",
            env={"BAND_API_KEY": alice.key},
        )
        wrong_key = await _trigger(
            "--rest-url",
            platform.rest_url,
            "--target-handle",
            "@x",
            "--message",
            "hi",
            env={"BAND_API_KEY": "band_not_a_key"},
        )
    assert missing[0] == 1 and missing[1] == ""
    assert missing[2].strip().splitlines()[-1] == (
        "Error: --target-handle is required (or set BAND_TARGET_HANDLE)."
    )
    assert unknown[0] == 1 and "Error: No peer with handle '@nobody/here'" in unknown[2]
    assert wrong_key[0] == 1 and wrong_key[2].strip().splitlines()[-1].startswith("Error: ")
