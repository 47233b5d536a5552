"""The brain's tool calls as one live Block Kit message in the Slack thread (a plan).

Each call is a line: ⏳ while it runs, ✅ when it succeeded, ❌ (with the error) when it
failed; writes are marked ✏️. The message is posted once and updated in place.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from band.runtime.tools.names import TOOL_EFFECTS
from band_sdk_core import TurnEffect

__all__ = [
    "DEFAULT_WRITE_TOOL_NAMES",
    "PlanState",
    "PlanTask",
    "TaskState",
    "humanize_tool_name",
    "plan_fallback_text",
    "render_plan_blocks",
]

DEFAULT_WRITE_TOOL_NAMES: frozenset[str] = frozenset(
    name for name, effect in TOOL_EFFECTS.items() if effect is TurnEffect.ACT
)
_MARK = {"in_progress": "⏳", "completed": "✅", "error": "❌"}
ERROR_TEXT_LIMIT = 200


class TaskState(StrEnum):
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    ERROR = "error"


@dataclass
class PlanTask:
    id: str
    label: str
    state: TaskState = TaskState.IN_PROGRESS
    is_write: bool = False
    error_message: str | None = None


@dataclass
class PlanState:
    """The plan of one turn; ``message_ts`` once its Slack message exists."""

    tasks: list[PlanTask] = field(default_factory=list)
    message_ts: str | None = None

    @property
    def done(self) -> bool:
        return all(t.state is not TaskState.IN_PROGRESS for t in self.tasks)


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
