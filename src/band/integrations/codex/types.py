"""The Codex app-server's vocabulary, and the records the Codex adapter keeps.

Item types and method names as the app-server's JSON-RPC protocol spells them; the session
state a room's history holds (the thread to resume); a Codex error as the shared
``AgentFailure``; plan steps; a thread's token counts (Codex reports running totals); and the
audit record of an approval decision.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from band_protocol import AgentFailure

__all__ = [
    "CODEX_APPROVAL_METHODS",
    "CODEX_PROVIDER",
    "DYNAMIC_TOOL_CALL_METHOD",
    "ApprovalAuditEntry",
    "CodexApprovalMethod",
    "CodexItemType",
    "CodexPlanStep",
    "CodexRequestMethod",
    "CodexSessionState",
    "CodexTokenUsage",
    "build_agent_failure",
    "parse_plan_steps",
]

logger = logging.getLogger(__name__)

CODEX_PROVIDER = "codex"
DYNAMIC_TOOL_CALL_METHOD = "item/tool/call"
"""The request by which Codex runs one of the dynamic tools the adapter offered."""
ERROR_DETAIL_LIMIT = 2048
"""Characters of Codex's free-form error details kept in a failure's metadata."""


class CodexItemType(StrEnum):
    """The ``type`` of a thread item (``item/started`` / ``item/completed``)."""

    COMMAND_EXECUTION = "commandExecution"
    FILE_CHANGE = "fileChange"
    MCP_TOOL_CALL = "mcpToolCall"
    WEB_SEARCH = "webSearch"
    IMAGE_VIEW = "imageView"
    COLLAB_AGENT_TOOL_CALL = "collabAgentToolCall"
    SUB_AGENT_ACTIVITY = "subAgentActivity"
    DYNAMIC_TOOL_CALL = "dynamicToolCall"
    REASONING = "reasoning"
    PLAN = "plan"
    CONTEXT_COMPACTION = "contextCompaction"
    ENTERED_REVIEW_MODE = "enteredReviewMode"
    EXITED_REVIEW_MODE = "exitedReviewMode"
    USER_MESSAGE = "userMessage"
    AGENT_MESSAGE = "agentMessage"


class CodexApprovalMethod(StrEnum):
    """Requests in which Codex asks to be allowed something; unanswered means declined."""

    COMMAND_EXECUTION = "item/commandExecution/requestApproval"
    FILE_CHANGE = "item/fileChange/requestApproval"


CODEX_APPROVAL_METHODS: frozenset[CodexApprovalMethod] = frozenset(CodexApprovalMethod)


class CodexRequestMethod(StrEnum):
    """The requests the adapter sends the app-server."""

    INITIALIZE = "initialize"
    MODEL_LIST = "model/list"
    SKILLS_EXTRA_ROOTS_SET = "skills/extraRoots/set"
    THREAD_RESUME = "thread/resume"
    THREAD_START = "thread/start"
    TURN_START = "turn/start"
    TURN_INTERRUPT = "turn/interrupt"


@dataclass
class CodexSessionState:
    """The Codex thread a room's history names (``band.converters.codex`` reads it)."""

    thread_id: str | None = None
    room_id: str | None = None
    created_at: datetime | None = None

    def has_thread(self) -> bool:
        """Whether there is a thread to resume."""
        return bool(self.thread_id)


def _bounded(value: Any) -> Any:
    """``value`` if small enough to ship in metadata; long text is cut, big data replaced."""
    if isinstance(value, str):
        if not value:
            return None
        if len(value) <= ERROR_DETAIL_LIMIT:
            return value
        cut = len(value) - ERROR_DETAIL_LIMIT
        return f"{value[:ERROR_DETAIL_LIMIT]}... [truncated, {cut} more chars]"
    try:
        size = len(json.dumps(value, default=str))
    except (TypeError, ValueError):
        return None
    if size <= ERROR_DETAIL_LIMIT:
        return value
    return f"[truncated, {size} serialized chars exceeded {ERROR_DETAIL_LIMIT}-char cap]"


def build_agent_failure(
    error_obj: dict[str, Any],
    *,
    thread_id: str | None = None,
    turn_id: str | None = None,
    room_id: str | None = None,
) -> AgentFailure:
    """A Codex ``error`` object (a failed turn's, or an ``error`` notification's) as the
    shared ``AgentFailure``.

    ``codexErrorInfo.type`` becomes the failure's code; its ``code``, ``httpStatus`` and
    ``retryable`` (kept only when present), the ids given, and ``additionalDetails`` go to
    the metadata as ``codex_*``. The details echo text from outside (an upstream API's
    error), so they are bounded here and must be escaped by whoever shows them.
    """
    info = error_obj.get("codexErrorInfo")
    info = info if isinstance(info, dict) else {}
    kind = str(info["type"]) if info.get("type") else None
    message = str(error_obj.get("message") or "") or f"Codex error: {kind or 'unknown'}"
    detail: dict[str, Any] = {}
    if info.get("code"):
        detail["codex_error_code"] = info["code"]
    if info.get("httpStatus") is not None:
        detail["codex_http_status"] = info["httpStatus"]
    if info.get("retryable") is not None:
        detail["codex_is_retryable"] = bool(info["retryable"])
    for key, value in (("thread", thread_id), ("turn", turn_id), ("room", room_id)):
        if value:
            detail[f"codex_{key}_id"] = value
    if error_obj.get("additionalDetails") is not None:
        bounded = _bounded(error_obj["additionalDetails"])
        if bounded is not None:
            detail["codex_additional_details"] = bounded
    return AgentFailure(CODEX_PROVIDER, message, kind, detail or None)


@dataclass
class CodexPlanStep:
    """One step of Codex's plan; ``status`` is ``pending``, ``inProgress`` or ``completed``."""

    step: str
    status: str = "pending"


def parse_plan_steps(params: dict[str, Any]) -> list[CodexPlanStep]:
    """The steps of a ``turn/plan/updated`` notification (or of a plan object).

    Steps are read from ``plan`` (a list, or an object with ``steps``) or from ``steps``;
    a step is an object (``step``, ``text`` or ``description``; ``status``) or plain text.
    """
    source: Any = params.get("plan", params)
    if isinstance(source, dict):
        source = source.get("steps")
    if not isinstance(source, list):
        return []
    steps: list[CodexPlanStep] = []
    for entry in source:
        if isinstance(entry, str) and entry:
            steps.append(CodexPlanStep(entry))
        elif isinstance(entry, dict):
            text = entry.get("step") or entry.get("text") or entry.get("description")
            if text:
                steps.append(CodexPlanStep(str(text), str(entry.get("status") or "pending")))
    return steps


def _count(counts: dict[str, Any], *keys: str) -> int:
    for key in keys:
        if counts.get(key) is not None:
            try:
                return int(counts[key])
            except (TypeError, ValueError):
                return 0
    return 0


@dataclass
class CodexTokenUsage:
    """A thread's token counts as Codex reports them: running totals, never going down.

    ``update`` takes a ``thread/tokenUsage/updated`` payload; ``reset_turn_deltas`` at a
    turn's start makes the ``turn_*`` counts what this turn added. ``cached_input_tokens``
    and ``context_window`` are what our ``/status`` shows beside them.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    total_tokens: int = 0
    turn_input_tokens: int = 0
    turn_output_tokens: int = 0
    turn_reasoning_tokens: int = 0
    turn_total_tokens: int = 0
    _turn_anchor_input: int = field(default=0, repr=False)
    _turn_anchor_output: int = field(default=0, repr=False)
    _turn_anchor_reasoning: int = field(default=0, repr=False)
    _turn_anchor_total: int = field(default=0, repr=False)
    cached_input_tokens: int = field(default=0, kw_only=True)
    context_window: int | None = field(default=None, kw_only=True)

    def update(self, params: dict[str, Any]) -> None:
        """Take the running totals of a token-usage notification.

        Read from ``tokenUsage.total`` (else ``tokenUsage.last``, else a flat ``usage`` or
        the payload itself). A total lower than the one held is logged and ignored, so the
        counts stay monotonic.
        """
        usage = params.get("tokenUsage")
        if isinstance(usage, dict):
            window = usage.get("modelContextWindow")
            if isinstance(window, int):
                self.context_window = window
            counts = usage.get("total") or usage.get("last") or {}
        else:
            counts = params.get("usage") or params
        if not isinstance(counts, dict):
            return
        seen = {
            "input": _count(counts, "inputTokens", "input_tokens"),
            "output": _count(counts, "outputTokens", "output_tokens"),
            "reasoning": _count(
                counts, "reasoningOutputTokens", "reasoningTokens", "reasoning_tokens"
            ),
            "cached": _count(counts, "cachedInputTokens", "cached_input_tokens"),
        }
        total = _count(counts, "totalTokens", "total_tokens")
        total = total or seen["input"] + seen["output"] + seen["reasoning"]
        held = (self.input_tokens, self.output_tokens, self.reasoning_tokens, self.total_tokens)
        if any(new < old for new, old in zip((*list(seen.values())[:3], total), held, strict=True)):
            logger.warning(
                "Codex token totals went down (%s after %s); keeping the highest", total, held
            )
        self.input_tokens = max(self.input_tokens, seen["input"])
        self.output_tokens = max(self.output_tokens, seen["output"])
        self.reasoning_tokens = max(self.reasoning_tokens, seen["reasoning"])
        self.total_tokens = max(self.total_tokens, total)
        self.cached_input_tokens = max(self.cached_input_tokens, seen["cached"])
        self.turn_input_tokens = max(0, self.input_tokens - self._turn_anchor_input)
        self.turn_output_tokens = max(0, self.output_tokens - self._turn_anchor_output)
        self.turn_reasoning_tokens = max(0, self.reasoning_tokens - self._turn_anchor_reasoning)
        self.turn_total_tokens = max(0, self.total_tokens - self._turn_anchor_total)

    def reset_turn_deltas(self) -> None:
        """A turn starts: the ``turn_*`` counts start again from zero."""
        self._turn_anchor_input = self.input_tokens
        self._turn_anchor_output = self.output_tokens
        self._turn_anchor_reasoning = self.reasoning_tokens
        self._turn_anchor_total = self.total_tokens
        self.turn_input_tokens = self.turn_output_tokens = 0
        self.turn_reasoning_tokens = self.turn_total_tokens = 0

    def to_metadata(self) -> dict[str, Any]:
        """The counts as a token-usage event's metadata (``codex_*``; turn counts once any)."""
        meta: dict[str, Any] = {
            "codex_event_type": "token_usage",
            "codex_input_tokens": self.input_tokens,
            "codex_output_tokens": self.output_tokens,
            "codex_reasoning_tokens": self.reasoning_tokens,
            "codex_total_tokens": self.total_tokens,
            "codex_cached_input_tokens": self.cached_input_tokens,
        }
        if self.context_window is not None:
            meta["codex_context_window"] = self.context_window
        if self.turn_total_tokens > 0:
            meta["codex_turn_input_tokens"] = self.turn_input_tokens
            meta["codex_turn_output_tokens"] = self.turn_output_tokens
            meta["codex_turn_reasoning_tokens"] = self.turn_reasoning_tokens
            meta["codex_turn_total_tokens"] = self.turn_total_tokens
        return meta

    def format_summary(self) -> str:
        """One line for people: the totals, and this turn's share once it has one."""
        text = (
            f"{self.total_tokens} tokens: input {self.input_tokens} "
            f"(cached {self.cached_input_tokens}), output {self.output_tokens}, "
            f"reasoning {self.reasoning_tokens}"
        )
        if self.context_window:
            text += f"; context window {self.context_window}"
        if self.turn_total_tokens > 0:
            text += f" (this turn: +{self.turn_total_tokens})"
        return text


@dataclass
class ApprovalAuditEntry:
    """One approval decision, for the room's audit trail (``/permissions``)."""

    request_id: str
    method: str
    decision: str
    decided_by: str
    timestamp: str
    summary: str = ""
    session_level: bool = False
