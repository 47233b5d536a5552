"""The seven task tools: argument checks, effects, FakeAgentTools, and the real AgentTools
against the platform in-process (the same rules answer in both)."""

from __future__ import annotations

from typing import Any

import pytest
from test_file_tools import agent_rest, fake  # noqa: F401  (fixture)
from test_rest_server import make_room

from band.platform import BandRestClient
from band.runtime.tools import AgentTools, RoomTools
from band_server.context import Platform
from conftest import Seeded


async def run_board(tools: RoomTools) -> dict[str, Any]:
    """One agent's pass over a board: create, move, comment, read history, set the goal."""
    created = await tools.execute_tool_call(
        "band_create_task", {"subject": "Write the report", "detail": "Q3"}
    )
    assert created["number"] == 1 and created["state"] == "active"
    moved = await tools.execute_tool_call(
        "band_update_task", {"id": "1", "status": "in_progress", "active_form": "Drafting"}
    )
    assert moved["overall_status"] == "in_progress"
    paused = await tools.execute_tool_call("band_update_task", {"id": "#1", "status": "pending"})
    assert paused["overall_status"] == "pending" and paused["started_at"] is not None
    back = await tools.execute_tool_call("band_update_task", {"id": "1", "status": "completed"})
    assert back["overall_status"] == "completed"
    wrong = await tools.execute_tool_call("band_update_task", {"id": "1", "status": "blocked"})
    assert wrong.startswith("Error executing band_update_task: 422 invalid_status_transition")
    history = await tools.execute_tool_call("band_get_task_history", {"id": created["id"]})
    events = [h["event"] for h in history["data"]]
    assert events[0] == "created" and events.count("status_changed") == 3
    board = await tools.execute_tool_call("band_set_board", {"goal_title": "Ship Q3"})
    assert board["goal_title"] == "Ship Q3"
    read = await tools.execute_tool_call("band_get_board", {"include": "history"})
    assert [h["event"] for h in read["history"]] == ["goal_set"]
    listed = await tools.execute_tool_call("band_list_tasks", {"state": "all"})
    assert [t["number"] for t in listed["data"]] == [1]
    one = await tools.execute_tool_call("band_get_task", {"id": "1", "include": "history"})
    assert one["id"] == created["id"] and one["history"]
    return one


async def test_fake_tools_run_the_board_with_the_platforms_rules() -> None:
    tools = fake()
    task = await run_board(tools)
    assert tools.tasks[0]["id"] == task["id"]
    assert tools.board["goal_title"] == "Ship Q3"
    assert tools.turn.complete and not tools.turn.replied  # ACT completes, never replies


@pytest.mark.parametrize(
    ("tool", "arguments", "fragment"),
    [
        ("band_update_task", {"id": "1"}, "at least one of"),
        ("band_set_board", {}, "goal_title, goal_summary or both"),
        ("band_create_task", {"subject": "   "}, "can't be blank"),
        ("band_list_tasks", {"state": "done"}, "state"),
        ("band_get_task", {"id": "1", "include": "everything"}, "include"),
    ],
)
async def test_bad_arguments_come_back_as_text_for_the_model(
    tool: str, arguments: dict[str, Any], fragment: str
) -> None:
    tools = fake()
    result = await tools.execute_tool_call(tool, arguments)
    assert result.startswith(f"Invalid arguments for {tool}") and fragment in result
    assert tools.tasks == [] and not tools.turn.complete


async def test_unknown_task_is_an_error_text() -> None:
    tools = fake()
    result = await tools.execute_tool_call("band_get_task", {"id": "42"})
    assert result == "Error executing band_get_task: 404 not_found: Task not found"


async def test_agent_tools_run_the_board_on_the_platform(
    platform: Platform,
    seeded: Seeded,
    agent_rest: BandRestClient,  # noqa: F811
) -> None:
    room_id = await make_room(platform, seeded.user_id, seeded.agent_id)
    tools = AgentTools(room_id, agent_rest, agent_id=seeded.agent_id)
    task = await run_board(tools)
    assert task["assignments"][0]["assignee"]["id"] == seeded.agent_id
    assert task["completed_at"] is not None
    result = await tools.execute_tool_call("band_get_task", {"id": "42"})
    assert result == "Error executing band_get_task: 404 not_found: Task not found"
