"""What both A2A directions share: task states, folding a stream into a task, its answer text."""

from __future__ import annotations

from copy import deepcopy

from band._extras import needs_extra

with needs_extra("A2A needs a2a-sdk", "a2a"):
    from a2a.helpers import get_artifact_text, get_message_text
    from a2a.types import Role, StreamResponse, Task, TaskState

__all__ = [
    "RETRYABLE_TASK_FAILURE_STATES",
    "TERMINAL_TASK_STATES",
    "TERMINAL_TASK_STATE_NAMES",
    "apply_task_stream_event",
    "snapshot_task",
    "state_name",
    "task_id_from_stream_event",
    "task_response_text",
]

TERMINAL_TASK_STATES = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
        TaskState.TASK_STATE_AUTH_REQUIRED,
    }
)
RETRYABLE_TASK_FAILURE_STATES = frozenset(
    {TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_REJECTED}
)
# As stored in task events: the enum names, and the 0.x spellings older history may hold.
TERMINAL_TASK_STATE_NAMES = frozenset(
    {TaskState.Name(s) for s in TERMINAL_TASK_STATES}
    | {"completed", "failed", "canceled", "rejected", "auth-required"}
)


def state_name(state: int) -> str:
    """The enum name of a task state (``TASK_STATE_COMPLETED``)."""
    return str(TaskState.Name(state))


def snapshot_task(task: Task) -> Task:
    """An independent copy (an event queue may keep what it is given)."""
    return deepcopy(task)


def task_id_from_stream_event(event: StreamResponse) -> str | None:
    """The task a stream event is about, if any (a plain message is about none)."""
    if event.HasField("task"):
        return str(event.task.id)
    if event.HasField("status_update"):
        return str(event.status_update.task_id)
    if event.HasField("artifact_update"):
        return str(event.artifact_update.task_id)
    return None


def apply_task_stream_event(task: Task | None, event: StreamResponse) -> Task | None:
    """Fold one stream event into the task it updates; None for an event about no task."""
    if event.HasField("task"):
        return snapshot_task(event.task)
    if event.HasField("status_update"):
        update = event.status_update
        task = task or Task(id=update.task_id, context_id=update.context_id)
        task.status.CopyFrom(update.status)
        return task
    if event.HasField("artifact_update"):
        change = event.artifact_update
        task = task or Task(id=change.task_id, context_id=change.context_id)
        for artifact in task.artifacts:
            if artifact.artifact_id == change.artifact.artifact_id:
                if change.append:
                    artifact.parts.extend(change.artifact.parts)
                else:
                    artifact.CopyFrom(change.artifact)
                return task
        task.artifacts.add().CopyFrom(change.artifact)
        return task
    return None


def task_response_text(task: Task | None) -> str:
    """A task's answer: its artifacts' text, else its status message, else the agent's last."""
    if task is None:
        return ""
    texts = [t for t in (get_artifact_text(a) for a in task.artifacts) if t]
    if texts:
        return "\n".join(texts)
    if task.status.HasField("message"):
        text = get_message_text(task.status.message)
        if text:
            return str(text)
    for message in reversed(task.history):
        if message.role == Role.ROLE_AGENT and get_message_text(message):
            return str(get_message_text(message))
    return ""
