"""The task and board tools (offered with ``Capability.TASKS``)."""

from __future__ import annotations

from .._parlant import ToolContext, ToolResult
from ..bandtool import band_tool
from ._call import run_band_tool

__all__ = [
    "band_create_task",
    "band_get_board",
    "band_get_task",
    "band_get_task_history",
    "band_list_tasks",
    "band_set_board",
    "band_update_task",
]


@band_tool("listing tasks")
async def band_list_tasks(
    context: ToolContext, state: str = "", cursor: str = "", limit: str = ""
) -> ToolResult:
    return await run_band_tool(context, "band_list_tasks", state=state, cursor=cursor, limit=limit)


@band_tool("creating task '{subject}'")
async def band_create_task(
    context: ToolContext, subject: str, detail: str = "", supersedes_id: str = ""
) -> ToolResult:
    return await run_band_tool(
        context, "band_create_task", subject=subject, detail=detail, supersedes_id=supersedes_id
    )


@band_tool("getting task '{id}'")
async def band_get_task(context: ToolContext, id: str, include: str = "") -> ToolResult:
    return await run_band_tool(context, "band_get_task", id=id, include=include)


@band_tool("updating task '{id}'")
async def band_update_task(
    context: ToolContext,
    id: str,
    status: str = "",
    active_form: str = "",
    comment: str = "",
    subject: str = "",
    detail: str = "",
    state: str = "",
) -> ToolResult:
    return await run_band_tool(
        context,
        "band_update_task",
        id=id,
        status=status,
        active_form=active_form,
        comment=comment,
        subject=subject,
        detail=detail,
        state=state,
    )


@band_tool("getting task history for '{id}'")
async def band_get_task_history(
    context: ToolContext, id: str, cursor: str = "", limit: str = ""
) -> ToolResult:
    return await run_band_tool(context, "band_get_task_history", id=id, cursor=cursor, limit=limit)


@band_tool("getting board")
async def band_get_board(context: ToolContext, include: str = "") -> ToolResult:
    return await run_band_tool(context, "band_get_board", include=include)


@band_tool("setting board")
async def band_set_board(
    context: ToolContext, goal_title: str = "", goal_summary: str = ""
) -> ToolResult:
    return await run_band_tool(
        context, "band_set_board", goal_title=goal_title, goal_summary=goal_summary
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
