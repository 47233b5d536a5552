"""The task and board tools (offered with ``Capability.TASKS``)."""

from __future__ import annotations

from ._call import forwarding_tool

__all__ = [
    "band_create_task",
    "band_get_board",
    "band_get_task",
    "band_get_task_history",
    "band_list_tasks",
    "band_set_board",
    "band_update_task",
]

band_list_tasks = forwarding_tool(
    "band_list_tasks", "listing tasks", optional=("state", "cursor", "limit")
)
band_create_task = forwarding_tool(
    "band_create_task",
    "creating task '{subject}'",
    ("subject",),
    optional=("detail", "supersedes_id"),
)
band_get_task = forwarding_tool(
    "band_get_task", "getting task '{id}'", ("id",), optional=("include",)
)
band_update_task = forwarding_tool(
    "band_update_task",
    "updating task '{id}'",
    ("id",),
    optional=("status", "active_form", "comment", "subject", "detail", "state"),
)
band_get_task_history = forwarding_tool(
    "band_get_task_history",
    "getting task history for '{id}'",
    ("id",),
    optional=("cursor", "limit"),
)
band_get_board = forwarding_tool("band_get_board", "getting board", optional=("include",))
band_set_board = forwarding_tool(
    "band_set_board", "setting board", optional=("goal_title", "goal_summary")
)

TOOLS = (
    band_list_tasks,
    band_create_task,
    band_get_task,
    band_update_task,
    band_get_task_history,
    band_get_board,
    band_set_board,
)
