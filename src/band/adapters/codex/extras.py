"""The opt-in events of a Codex turn (``CodexAdapterConfig``'s stream and ``emit_*`` flags).

How it works: docs/internals/sdk.md, "Codex: opt-in events".

Thoughts need ``Emit.THOUGHTS``, task events ``Emit.TASK_EVENTS``.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from band.core.types import Emit
from band.integrations.codex.types import CodexTokenUsage, parse_plan_steps

from .messages import NativeMessage

if TYPE_CHECKING:
    from ._types import TurnView

__all__ = ["DIFF_LIMIT", "TurnExtras"]

DIFF_LIMIT = 64 * 1024


class TurnExtras:
    """The extra events of one turn; every method is a no-op when its flag is off."""

    def __init__(self, turn: TurnView) -> None:
        self.turn = turn
        self.config = turn.adapter.config
        self.reporter = turn.reporter
        self.started_at = time.monotonic()
        self.messages: dict[str, NativeMessage] = {}  # agent messages by item id
        self._diff: str | None = None

    def _ids(self, item_id: Any = None) -> dict[str, Any]:
        ids = {
            "codex_room_id": self.turn.prompt.room_id,
            "codex_thread_id": self.turn.thread_id,
            "codex_turn_id": self.turn.turn_id,
        }
        if item_id is not None:
            ids["codex_item_id"] = str(item_id)
        return ids

    @property
    def _tasks_on(self) -> bool:
        return Emit.TASK_EVENTS in self.reporter.emit

    # -- streamed thoughts -------------------------------------------------------------------

    def message(self, item_id: object) -> NativeMessage:
        """The agent message of ``item_id`` (created on first sight)."""
        return self.messages.setdefault(str(item_id), NativeMessage())

    def item_started(self, item: dict[str, Any]) -> None:
        if item.get("type") == "agentMessage":
            self.message(item.get("id")).phase = item.get("phase")

    async def delta(self, method: str, params: dict[str, Any]) -> None:
        text, item = str(params.get("delta") or ""), params.get("itemId")
        if method in ("item/reasoning/summaryTextDelta", "item/reasoning/textDelta"):
            if self.config.stream_reasoning_events:
                await self.reporter.stream_thought(
                    text, {"subtype": "reasoning", **self._ids(item)}
                )
        elif method == "item/plan/delta":
            if self.config.stream_plan_events:
                await self.reporter.stream_thought(text, {"subtype": "plan", **self._ids(item)})
        elif method == "item/agentMessage/delta":
            message = self.message(item)
            if message.phase == "commentary" and self.config.stream_commentary_events:
                meta = {"subtype": "commentary", **self._ids(item)}
                if await self.reporter.stream_thought(text, meta):
                    message.streamed_text += text

    # -- task events -------------------------------------------------------------------------

    async def plan(self, params: dict[str, Any]) -> None:
        if not (self.config.stream_plan_events and self._tasks_on):
            return
        steps = [asdict(step) for step in parse_plan_steps(params)]
        lines = [f"- [{s['status']}] {s['step']}" for s in steps]
        explanation = params.get("explanation")
        head = f"Codex plan: {explanation}" if explanation else "Codex plan"
        meta = {"codex_event_type": "plan", "codex_plan": steps, **self._ids()}
        await self.reporter.task("\n".join([head, *lines]), meta)

    def diff(self, params: dict[str, Any]) -> None:
        if isinstance(params.get("diff"), str):
            self._diff = params["diff"]

    async def token_usage(self, usage: CodexTokenUsage, last_total: int) -> None:
        if not (self.config.emit_token_usage_events and self._tasks_on):
            return
        meta = {**usage.to_metadata(), "codex_last_total_tokens": last_total, **self._ids()}
        await self.reporter.task(f"Codex token usage: {usage.format_summary()}", meta)

    async def compacted(self) -> None:
        if self.config.emit_turn_lifecycle_events and self._tasks_on:
            meta = {"codex_event_type": "context_compaction", **self._ids()}
            await self.reporter.task("Codex context compaction: completed", meta)

    async def started(self) -> None:
        if not self._tasks_on:
            return
        if self.config.emit_turn_task_markers:
            await self.reporter.task(
                "Codex turn: started", {"codex_turn_status": "started", **self._ids()}
            )
        if self.config.emit_turn_lifecycle_events:
            meta = {
                "codex_event_type": "turn_lifecycle",
                "codex_turn_status": "started",
                "codex_input_summary": self.turn.prompt.msg.content[:200],
                **self._ids(),
            }
            await self.reporter.task("Codex turn lifecycle: started", meta)

    async def finished(self, status: str, error: str | None) -> None:
        if not self._tasks_on:
            return
        ended = {
            "codex_turn_status": status,
            "codex_error": error,
            "codex_duration_s": round(time.monotonic() - self.started_at, 2),
            **self._ids(),
        }
        usage = self.turn.room.thread_usage()
        if self.config.emit_diff_events and self._diff:
            await self._post_diff(self._diff)
        if self.config.emit_turn_task_markers:
            tail = f" ({error})" if error else ""
            counts = usage.to_metadata() if usage is not None else {}
            counts.pop("codex_event_type", None)
            await self.reporter.task(f"Codex turn: {status}{tail}", {**ended, **counts})
        if self.config.emit_turn_lifecycle_events:
            meta = {"codex_event_type": "turn_lifecycle", **ended}
            await self.reporter.task(f"Codex turn lifecycle: {status}", meta)

    async def _post_diff(self, diff: str) -> None:
        # The diff itself goes in the metadata: event content is bounded (16 KiB).
        raw = diff.encode()
        truncated = len(raw) > DIFF_LIMIT
        shown = raw[:DIFF_LIMIT].decode(errors="ignore") if truncated else diff
        files = [
            line.split(" b/", 1)[-1] for line in diff.splitlines() if line.startswith("diff --git ")
        ]
        added = sum(
            1 for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")
        )
        removed = sum(
            1 for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")
        )
        meta = {
            "codex_event_type": "diff",
            "codex_diff": shown,
            "codex_diff_bytes": len(raw),
            "codex_diff_truncated": truncated,
            "codex_diff_files": files,
            **self._ids(),
        }
        listed = ", ".join(files[:20]) + (", ..." if len(files) > 20 else "")
        cut = "; diff truncated to 64 KiB" if truncated else ""
        text = f"Codex diff: {len(files)} file(s) changed (+{added} -{removed}): {listed}{cut}"
        await self.reporter.task(text, meta)
