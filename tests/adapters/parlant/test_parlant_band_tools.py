"""Band's tools as Parlant tools (``band.integrations.parlant.bandtools``): which a feature
set offers, how each entry is described, and what a call returns to the model."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("parlant")

from band.core.exceptions import BandToolError
from band.core.types import AdapterFeatures, Capability
from band.integrations.parlant.bandtool import build_band_tool
from band.integrations.parlant.bandtools import band_tool_specs
from band.integrations.parlant.bandtools.tasks import band_create_task
from band.integrations.parlant.sessiontools import NO_SESSION_TOOLS_ERROR, bound_session_tools
from band.runtime.tools.names import CHAT_TOOL_NAMES


class Ctx:
    def __init__(self, session_id: str) -> None:
        self.session_id = session_id


class RoomTools:
    """Records each tool call; fails the ones named in ``failing``."""

    participants: list[dict[str, Any]] = [{"id": "u1", "name": "Alice", "handle": "alice"}]
    agent_id = "a1"

    def __init__(self, failing: str = "") -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.failing = failing

    async def execute_tool_call(self, name: str, args: dict[str, Any]) -> str:
        self.calls.append((name, args))
        if name == self.failing:
            raise BandToolError("no such handle @bob")
        return f"{name} done"


def test_capabilities_decide_which_band_tools_a_parlant_agent_gets() -> None:
    chat_only = {s.name for s in band_tool_specs(AdapterFeatures())}
    assert chat_only == set(CHAT_TOOL_NAMES)
    with_tasks = {
        s.name
        for s in band_tool_specs(
            AdapterFeatures(capabilities=frozenset({Capability.TASKS, Capability.FILES}))
        )
    }
    assert {"band_create_task", "band_set_board", "band_send_room_file"} <= with_tasks
    assert "band_list_contacts" not in with_tasks
    assert len(band_tool_specs(None)) == 23


async def test_a_band_tool_entry_is_described_by_its_model_and_calls_the_rooms_tool() -> None:
    entry = build_band_tool(band_create_task)
    assert entry.tool.name == "band_create_task"
    assert entry.tool.description  # the tool model's description
    assert entry.tool.required == ["subject"]
    assert entry.tool.consequential  # creating a task is work done in the turn

    tools = RoomTools()
    with bound_session_tools(session_id="s-1", tools=tools):
        done = await entry.function(Ctx("s-1"), subject="Ship it", detail=None, supersedes_id="")
    assert done.data == "band_create_task done"
    assert tools.calls == [("band_create_task", {"subject": "Ship it"})]
    assert (await entry.function(Ctx("s-2"), subject="x")).data == NO_SESSION_TOOLS_ERROR


async def test_a_failed_mention_comes_back_as_text_listing_the_rooms_handles() -> None:
    (send,) = [s for s in band_tool_specs(None) if s.name == "band_send_message"]
    entry = build_band_tool(send)
    tools = RoomTools(failing="band_send_message")
    with bound_session_tools(session_id="s-1", tools=tools):
        failed = await entry.function(Ctx("s-1"), content="hi", mentions="@bob")
        nobody = await entry.function(Ctx("s-1"), content="hi", mentions=" , ")
    assert failed.data.startswith("Error sending message: no such handle @bob")
    assert "Available handles: ['alice']" in failed.data
    assert tools.calls == [("band_send_message", {"content": "hi", "mentions": ["@bob"]})]
    assert nobody.data.startswith("Error") and "'alice'" in nobody.data


async def test_a_forwarded_tool_names_its_arguments_however_parlant_passes_them() -> None:
    (update,) = [s for s in band_tool_specs(None) if s.name == "band_update_task"]
    entry = build_band_tool(update)
    assert entry.tool.required == ["id"]
    assert list(entry.tool.parameters) == [
        "id",
        "status",
        "active_form",
        "comment",
        "subject",
        "detail",
        "state",
    ]
    tools = RoomTools(failing="band_update_task")
    with bound_session_tools(session_id="s-1", tools=tools):
        failed = await entry.function(Ctx("s-1"), "t-1", "done", comment=None)
        malformed = await entry.function(Ctx("s-1"), "t-1", colour="red")
    assert tools.calls == [("band_update_task", {"id": "t-1", "status": "done"})]
    assert failed.data == "Error updating task 't-1': no such handle @bob"
    assert malformed.data.startswith("Error calling band_update_task:")
