"""The brain's tool calls as one live Block Kit message in the Slack thread (a plan).

Each call is a line: ⏳ while it runs, ✅ when it succeeded, ❌ (with the error) when it
failed; writes are marked ✏️. The message is posted once and updated in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = [
    "DEFAULT_WRITE_TOOL_NAMES",
    "PlanState",
    "PlanTask",
    "TaskState",
    "humanize_tool_name",
    "plan_fallback_text",
    "render_plan_blocks",
]

# The tools band-sdk marks as writes in the plan by default: posting, changing who is in a
# room or a contact list, and memory changes.
DEFAULT_WRITE_TOOL_NAMES: frozenset[str] = frozenset(
    {
        "band_send_message",
        "band_add_participant",
        "band_remove_participant",
        "band_create_chatroom",
        "band_store_memory",
        "band_supersede_memory",
        "band_archive_memory",
        "band_add_contact",
        "band_remove_contact",
        "band_respond_contact_request",
    }
)
_MARK = {"pending": "⏸", "in_progress": "⏳", "completed": "✅", "error": "❌"}
ERROR_TEXT_LIMIT = 200


class TaskState(StrEnum):
    """Where one tool call of the plan stands."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    ERROR = "error"


@dataclass
class PlanTask:
    """One tool call shown in the plan (``id`` is the call's own)."""

    id: str
    label: str
    state: TaskState = TaskState.PENDING
    is_write: bool = False
    error_message: str | None = None


@dataclass
class PlanState:
    """The plan of one turn; ``message_ts`` once its Slack message exists."""

    message_ts: str | None = None
    tasks: list[PlanTask] = field(default_factory=list)
    tasks_by_id: dict[str, PlanTask] = field(default_factory=dict)

    def add(self, task: PlanTask) -> None:
        """Append a task; it is found again by its id."""
        self.tasks.append(task)
        self.tasks_by_id[task.id] = task

    @property
    def done(self) -> bool:
        unfinished = (TaskState.PENDING, TaskState.IN_PROGRESS)
        return all(t.state not in unfinished for t in self.tasks)


def humanize_tool_name(name: str) -> str:
    """``band_send_message`` -> ``Send message``."""
    words = name.removeprefix("band_").replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else name


def render_plan_blocks(plan: PlanState) -> list[dict[str, Any]]:
    heading = "Done" if plan.done else "Working on it…"
    blocks: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"*{heading}*"}}
    ]
    for task in plan.tasks[-40:]:  # Slack allows 50 blocks per message
        line = f"{_MARK[task.state]} {'✏️ ' if task.is_write else ''}{task.label}"
        if task.state is TaskState.ERROR and task.error_message:
            line += f": {task.error_message[:ERROR_TEXT_LIMIT]}"
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": line}]})
    return blocks


def plan_fallback_text(plan: PlanState) -> str:
    """The plain text Slack shows where blocks cannot be (notifications)."""
    return "Done" if plan.done else "Working on it…"
