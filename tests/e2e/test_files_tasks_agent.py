"""End to end: an SDK agent (OpenAIChatAdapter on a scripted model) shares files and runs the
task board on our platform, and people see the same bytes, tasks and goal through REST.

The agent is a real ``band.Agent`` (socket + REST) against ``band.testing.LocalPlatform``; the
model is ``band.testing.FakeModel`` behind a loopback OpenAI endpoint, scripted with the tool
calls a model would make. The tools it calls are the ones the adapter offered in its schemas.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from openai import AsyncOpenAI

from band import Agent
from band.adapters import OpenAIChatAdapter
from band.core.types import Capability
from band.runtime.tools import FILE_TOOL_NAMES, TASK_TOOL_NAMES
from band.testing import FakeModel, LocalPlatform, fake_openai_server
from band_server.testing.local_platform import Identity

REPORT = "Quarterly report\n- revenue up 12%\n- costs flat\n"
BRIEF = "# Brief\nCompare the two vendors and pick one.\n"


@dataclass
class Room:
    platform: LocalPlatform
    alice: Identity
    echo: Identity
    room_id: str
    model: FakeModel

    def http(self) -> httpx.AsyncClient:
        headers = {"X-API-Key": self.alice.key}
        return httpx.AsyncClient(base_url=self.platform.rest_url, headers=headers, timeout=30)

    async def agent_messages(self) -> list[dict[str, Any]]:
        """The agent's text messages (its events are left out)."""
        rows = await self.platform.messages(self.alice, self.room_id)
        return [m for m in rows if m["sender_id"] == self.echo.id and m["message_type"] == "text"]


async def until(probe: Callable[[], Awaitable[Any]], what: str, within: float = 60.0) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while loop.time() < deadline:
        value = await probe()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out after {within:.0f}s waiting for {what}")


@pytest.fixture
def model() -> Iterator[tuple[FakeModel, str]]:
    fake = FakeModel()
    with fake_openai_server(fake) as base_url:
        yield fake, base_url


@pytest.fixture
async def room(model: tuple[FakeModel, str]) -> AsyncIterator[Room]:
    fake, base_url = model
    async with LocalPlatform() as platform:
        alice = await platform.person("alice", "Alice")
        echo = await platform.agent(alice, "Echo")
        room_id = await platform.room(alice, echo, title="Workspace")
        adapter = OpenAIChatAdapter(
            model="fake-model",
            client=AsyncOpenAI(base_url=base_url, api_key="sk-test"),
            capabilities=[Capability.FILES, Capability.TASKS],
        )
        agent = Agent.create(
            adapter=adapter,
            agent_id=echo.id,
            api_key=echo.key,
            rest_url=platform.rest_url,
            ws_url=platform.ws_url,
        )
        await agent.start()
        try:
            yield Room(platform, alice, echo, room_id, fake)
        finally:
            await agent.stop()


async def test_agent_sends_a_file_and_a_person_downloads_the_same_bytes(room: Room) -> None:
    room.model.call_tool(
        "band_send_room_file",
        {"content": REPORT, "filename": "report.txt", "mentions": ["alice"]},
    )
    await room.platform.post(room.alice, room.room_id, "please share the report", room.echo)

    async def shared() -> dict[str, Any] | None:
        return next((m for m in await room.agent_messages() if m["attachments"]), None)

    message = await until(shared, "the agent's file message")
    offered = set(room.model.requests[0].tool_names)
    assert offered >= FILE_TOOL_NAMES | TASK_TOOL_NAMES, offered
    [attachment] = message["attachments"]
    assert attachment["name"] == "report.txt" and attachment["content_type"] == "text/plain"
    assert message["content"].endswith("Shared a file: report.txt")
    async with room.http() as http:
        r = await http.get(f"/api/v1/me/chats/{room.room_id}/files/{attachment['id']}")
    assert r.status_code == 200
    assert r.content == REPORT.encode()


async def test_a_persons_upload_is_read_by_the_agents_band_read_room_file(room: Room) -> None:
    async with room.http() as http:
        up = await http.put(
            f"/api/v1/me/chats/{room.room_id}/files",
            headers={"x-file-name": "brief.md", "content-type": "text/markdown"},
            content=BRIEF.encode(),
        )
        assert up.status_code == 201, up.text
        file_id = up.json()["data"]["id"]
        post = await http.post(
            f"/api/v1/me/chats/{room.room_id}/messages",
            json={
                "message": {
                    "content": "read the brief",
                    "mentions": [{"id": room.echo.id}],
                    "attachment_ids": [file_id],
                }
            },
        )
        assert post.status_code == 201, post.text
    room.model.call_tool("band_list_room_files", {})
    room.model.call_tool("band_read_room_file", {"file_id": file_id})
    room.model.call_tool("band_send_message", {"content": "Read it.", "mentions": ["alice"]})

    await until(room.agent_messages, "the agent's answer")
    seen = [json.loads(text) for text in room.model.requests[-1].texts("tool")]
    listed, read = seen[0], seen[1]
    assert [f["id"] for f in listed["data"]] == [file_id]
    assert read["text"] == BRIEF and read["content_type"] == "text/markdown"


async def test_agent_runs_a_task_through_its_statuses_reads_history_and_sets_the_board(
    room: Room,
) -> None:
    for name, arguments in (
        ("band_create_task", {"subject": "Pick a vendor", "detail": "Compare two"}),
        ("band_update_task", {"id": "1", "status": "in_progress", "active_form": "Comparing"}),
        ("band_update_task", {"id": "1", "status": "in_review", "comment": "Vendor B wins"}),
        ("band_update_task", {"id": "1", "status": "completed"}),
        ("band_update_task", {"id": "1", "status": "blocked"}),  # refused: completed is done
        ("band_get_task_history", {"id": "1"}),
        ("band_set_board", {"goal_title": "Choose a vendor", "goal_summary": "By Friday"}),
        ("band_send_message", {"content": "Done: vendor B.", "mentions": ["alice"]}),
    ):
        room.model.call_tool(name, arguments)
    await room.platform.post(room.alice, room.room_id, "run the vendor task", room.echo)
    await until(room.agent_messages, "the agent's answer", within=90)

    results = room.model.requests[-1].texts("tool")
    assert "invalid_status_transition" in results[4], results[4]
    history = json.loads(results[5])
    assert [h["event"] for h in history["data"]] == [
        "created",
        "status_changed",
        "status_changed",
        "commented",
        "status_changed",
    ]
    async with room.http() as http:
        task = (await http.get(f"/api/v1/me/chats/{room.room_id}/tasks/1")).json()["data"]
        board = (await http.get(f"/api/v1/me/chats/{room.room_id}/board")).json()["data"]
    assert task["subject"] == "Pick a vendor" and task["overall_status"] == "completed"
    assert task["assignments"][0]["assignee"]["id"] == room.echo.id
    assert task["completed_at"] is not None
    assert (board["goal_title"], board["goal_summary"]) == ("Choose a vendor", "By Friday")
    assert board["updated_by"]["id"] == room.echo.id
    timeline = await room.platform.messages(room.alice, room.room_id)
    ours = ("band_task", "band_board")  # the adapter's usage records are task events too
    kinds = [k for m in timeline if m["message_type"] == "task" for k in m["metadata"] if k in ours]
    assert kinds == ["band_task"] * 5 + ["band_board"], kinds
