"""``SlackTeeingTools``: a Slack-bound room's tools, plus the Slack thread.

It adds the tool ``slack_send_message`` (posts into the bound thread and counts as the
turn's reply); ``send_message`` addressed to the Slack user (whose ids start ``slack:``)
goes to the thread too, so adapters that relay their final text reach Slack. Every other
tool call is shown as a live plan in the thread when ``show_tool_progress`` is on.
Everything else is the wrapped room tools'.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from band.core.protocols import AgentToolsProtocol
from band.core.types import Capability
from band.runtime.tools.dispatch import ToolCallOutcome
from band_sdk_core import TurnEffect

from .block_kit import (
    DEFAULT_WRITE_TOOL_NAMES,
    PlanState,
    PlanTask,
    TaskState,
    humanize_tool_name,
    plan_fallback_text,
    render_plan_blocks,
)
from .types import SlackRoomBinding

__all__ = ["SLACK_SEND_MESSAGE_TOOL_NAME", "SLACK_USER_PREFIX", "SlackTeeingTools"]

logger = logging.getLogger("band.integrations.slack")
SLACK_SEND_MESSAGE_TOOL_NAME = "slack_send_message"
SLACK_USER_PREFIX = "slack:"
_DESCRIPTION = (
    "Send a plain-text reply to the Slack user who started this conversation, in their Slack "
    "thread. Use it for the answer and any update meant for them; it does not post in the "
    "Band room. Use band_send_message (with @mentions) to talk to Band peers in the room."
)
_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"content": {"type": "string", "description": "The message text."}},
    "required": ["content"],
}


class SlackTeeingTools:
    """Room tools with the bound Slack thread added (see the module docstring)."""

    def __init__(
        self,
        *,
        wrap: AgentToolsProtocol,
        slack: Any,
        binding: SlackRoomBinding,
        write_tool_names: Iterable[str] | None = None,
        show_tool_progress: bool = True,
    ) -> None:
        self._wrap = wrap
        self._slack = slack
        self._binding = binding
        self._writes = frozenset(
            write_tool_names if write_tool_names is not None else DEFAULT_WRITE_TOOL_NAMES
        )
        self._show_progress = show_tool_progress
        self._plan = PlanState()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._wrap, name)

    @property
    def wrapped(self) -> AgentToolsProtocol:
        return self._wrap

    # -- the Slack thread --------------------------------------------------------------------

    async def slack_send_message(self, content: str) -> dict[str, Any]:
        """Post ``content`` in the bound thread; ``{"ok": True}``, or ``ok`` False and the error."""
        try:
            await self._slack.chat_postMessage(
                channel=self._binding.channel, thread_ts=self._binding.thread_ts, text=content
            )
        except Exception as exc:
            logger.warning("Posting to Slack %s failed: %s", self._binding.channel, exc)
            return {"ok": False, "error": str(exc)}
        self._wrap.turn.record(TurnEffect.REPLY)
        return {"ok": True}

    async def send_message(self, content: str, mentions: Any = None, **kwargs: Any) -> Any:
        """To the Slack user: into the thread; to anyone else: into the room."""
        if _names_slack_user(mentions):
            posted = await self.slack_send_message(content)
            if not posted["ok"]:
                raise RuntimeError(f"Slack refused the reply: {posted['error']}")
            return posted
        return await self._wrap.send_message(content, mentions=mentions, **kwargs)

    # -- schemas and dispatch ----------------------------------------------------------------

    def get_tool_schemas(
        self, format: str, *, capabilities: Iterable[Capability] | None = None
    ) -> list[dict[str, Any]]:
        base = list(self._wrap.get_tool_schemas(format, capabilities=capabilities))
        if format == "openai":
            function = {"name": SLACK_SEND_MESSAGE_TOOL_NAME, "description": _DESCRIPTION}
            return [
                *base,
                {"type": "function", "function": {**function, "parameters": _PARAMETERS}},
            ]
        entry = {"name": SLACK_SEND_MESSAGE_TOOL_NAME, "description": _DESCRIPTION}
        return [*base, {**entry, "input_schema": _PARAMETERS}]

    def get_openai_tool_schemas(self, *, capabilities: Any = None) -> list[dict[str, Any]]:
        return self.get_tool_schemas("openai", capabilities=capabilities)

    def get_anthropic_tool_schemas(self, *, capabilities: Any = None) -> list[dict[str, Any]]:
        return self.get_tool_schemas("anthropic", capabilities=capabilities)

    async def execute_tool_call(self, tool_name: str, arguments: Mapping[str, Any]) -> Any:
        return (await self.execute_tool_call_structured(tool_name, arguments)).value

    async def execute_tool_call_structured(
        self, tool_name: str, arguments: Mapping[str, Any] | None
    ) -> ToolCallOutcome:
        args = dict(arguments or {})
        if tool_name == SLACK_SEND_MESSAGE_TOOL_NAME:
            content = args.get("content")
            if not isinstance(content, str) or not content.strip():
                text = f"Error: {SLACK_SEND_MESSAGE_TOOL_NAME} needs a non-empty 'content'"
                return ToolCallOutcome(value=text, ok=False, error_message=text)
            posted = await self.slack_send_message(content)
            error = None if posted["ok"] else str(posted["error"])
            return ToolCallOutcome(value=posted, ok=error is None, error_message=error)
        task = await self._start_task(tool_name)
        try:
            outcome = await _structured(self._wrap, tool_name, args)
        except Exception as exc:
            await self._end_task(task, TaskState.ERROR, str(exc))
            raise
        state = TaskState.COMPLETED if outcome.ok else TaskState.ERROR
        await self._end_task(task, state, outcome.error_message)
        return outcome

    # -- the plan ----------------------------------------------------------------------------

    async def _start_task(self, tool_name: str) -> PlanTask | None:
        if not self._show_progress:
            return None
        task = PlanTask(
            str(uuid.uuid4()),
            humanize_tool_name(tool_name),
            TaskState.IN_PROGRESS,
            is_write=tool_name in self._writes,
        )
        self._plan.add(task)
        await self._show_plan()
        return task

    async def _end_task(self, task: PlanTask | None, state: TaskState, error: str | None) -> None:
        if task is not None:
            task.state, task.error_message = state, error
            await self._show_plan()

    async def _show_plan(self) -> None:
        """Post the plan message once, then update it in place; best effort."""
        where = {"channel": self._binding.channel}
        content = {"blocks": render_plan_blocks(self._plan), "text": plan_fallback_text(self._plan)}
        try:
            if self._plan.message_ts is None:
                posted = await self._slack.chat_postMessage(
                    **where, thread_ts=self._binding.thread_ts, **content
                )
                self._plan.message_ts = posted.get("ts")
            else:
                await self._slack.chat_update(**where, ts=self._plan.message_ts, **content)
        except Exception as exc:
            logger.warning("Showing tool progress in Slack failed: %s", exc)


def _names_slack_user(mentions: Any) -> bool:
    for mention in mentions or []:
        ident = mention.get("id") if isinstance(mention, Mapping) else mention
        if isinstance(ident, str) and ident.startswith(SLACK_USER_PREFIX):
            return True
    return False


async def _structured(tools: Any, name: str, args: dict[str, Any]) -> ToolCallOutcome:
    structured = getattr(tools, "execute_tool_call_structured", None)
    if structured is not None:
        outcome: ToolCallOutcome = await structured(name, args)
        return outcome
    value = await tools.execute_tool_call(name, args)
    return ToolCallOutcome(value=value, ok=True)
