"""One Codex turn: its notifications become room events, its requests are answered.

* ``item/tool/call`` (a Band tool, offered as a dynamic tool) runs on the room's tools;
* command and file-change approvals go through the approvals relay;
* items Codex runs itself (commands, file changes, MCP calls, web searches, ...) become a
  ``tool_call`` when they start and a ``tool_result`` when they complete; reasoning, plans
  and compactions become thoughts; agent text is held (see :class:`Reporter`);
* ``thread/tokenUsage/updated`` adds up the turn's usage (Codex's output tokens already
  include reasoning tokens) and keeps the thread's totals; ``turn/completed`` ends it;
* the opt-in extra events are :class:`TurnExtras`'s; ``setmodel`` / ``setreasoning`` (with
  ``enable_self_config_tools``) change the room's own settings.
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
from typing import TYPE_CHECKING, Any

from band.adapters._coding.approvals import ApprovalRequest, Decision
from band.adapters._tool_events import UsageTotal, run_band_tool
from band.core.types import TurnUsage
from band.integrations.codex.types import (
    CODEX_APPROVAL_METHODS,
    DYNAMIC_TOOL_CALL_METHOD,
    CodexApprovalMethod,
    CodexItemType,
    CodexTokenUsage,
)

from .extras import TurnExtras
from .items import call_of, completed_tool_item
from .messages import TurnResult
from .room import CodexRoom
from .self_config import SELF_CONFIG_TOOLS, run_self_config

if TYPE_CHECKING:
    from band.adapters._coding.base import Prompt

    from ._types import TurnHost

__all__ = ["CodexTurnRun"]

logger = logging.getLogger("band.adapters.codex")

_DELTAS = (
    "item/reasoning/summaryTextDelta",
    "item/reasoning/textDelta",
    "item/plan/delta",
    "item/agentMessage/delta",
)
_APPROVALS = {
    CodexApprovalMethod.COMMAND_EXECUTION: "command",
    CodexApprovalMethod.FILE_CHANGE: "file change",
}
_I = CodexItemType


class CodexTurnRun:
    """Routes one turn's traffic; ``done`` resolves with the completed ``turn`` object."""

    def __init__(self, adapter: TurnHost, prompt: Prompt, room: CodexRoom, thread_id: str) -> None:
        self.adapter = adapter
        self.prompt = prompt
        self.room = room
        self.reporter = prompt.reporter
        self.thread_id = thread_id
        self.turn_id: str | None = None
        self.usage = UsageTotal()
        self.done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.awaiting_approval = 0
        self.extras = TurnExtras(self)
        self.result = TurnResult(self.extras.messages)  # filled in as the turn runs
        held = room.usage.get(thread_id)
        if held is not None:
            held.reset_turn_deltas()
        self._file_paths: dict[str, list[str]] = {}

    def _ours(self, params: dict[str, Any]) -> bool:
        if params.get("threadId") not in (None, self.thread_id):
            return False
        turn = params.get("turnId")
        return turn is None or self.turn_id is None or turn == self.turn_id

    # -- notifications --------------------------------------------------------------------------

    async def on_notification(self, method: str, params: dict[str, Any]) -> None:
        if not self._ours(params):
            return
        item = params.get("item") if isinstance(params.get("item"), dict) else None
        if method == "item/started" and item is not None:
            self.extras.item_started(item)
            await self._started(item)
        elif method == "item/completed" and item is not None:
            await self._completed(item)
        elif method in _DELTAS:
            await self.extras.delta(method, params)
        elif method == "thread/tokenUsage/updated":
            await self._token_usage(params.get("tokenUsage") or {})
        elif method == "turn/plan/updated":
            await self.extras.plan(params)
        elif method == "turn/diff/updated":
            self.extras.diff(params)
        elif method in ("thread/compacted", "context/compacted"):
            await self.extras.compacted()
        elif method == "turn/completed":
            turn = params.get("turn") or {}
            if not self.done.done():
                self.done.set_result(turn if isinstance(turn, dict) else {})
        elif method == "error":
            logger.warning("Codex error in room %s: %s", self.prompt.room_id, params.get("error"))

    async def _token_usage(self, usage: dict[str, Any]) -> None:
        last = usage.get("last") or {}
        self.usage.add(
            TurnUsage(
                input_tokens=int(last.get("inputTokens") or 0),
                output_tokens=int(last.get("outputTokens") or 0),
                cache_read_tokens=int(last.get("cachedInputTokens") or 0),
                cache_write_tokens=int(last.get("cacheWriteInputTokens") or 0),
            )
        )
        totals = self.room.usage.setdefault(self.thread_id, CodexTokenUsage())
        totals.update({"tokenUsage": usage})
        await self.extras.token_usage(totals, int(last.get("totalTokens") or 0))

    async def _started(self, item: dict[str, Any]) -> None:
        if item.get("type") == _I.FILE_CHANGE:
            self._file_paths[str(item.get("id"))] = [
                str(c.get("path")) for c in item.get("changes") or []
            ]
        call = call_of(item)
        if call is not None:
            await self.reporter.tool_call(call[0], call[1], str(item.get("id")))

    async def _completed(self, item: dict[str, Any]) -> None:
        kind = item.get("type")
        done = completed_tool_item(item)
        if done is not None:
            tool, is_error = done
            await self.reporter.tool_result(
                tool.name, tool.output, str(item.get("id")), is_error=is_error
            )
        elif kind == _I.AGENT_MESSAGE:
            message = self.extras.message(item.get("id"))
            message.completed_text = str(item.get("text") or "")
            if message.unstreamed_text:  # what streamed as chunks is not repeated
                self.reporter.hold_text(message.unstreamed_text)
        elif kind == _I.REASONING:
            parts = list(item.get("summary") or []) or list(item.get("content") or [])
            await self.reporter.thought("\n\n".join(str(p) for p in parts))
        elif kind == _I.PLAN:
            await self.reporter.thought(str(item.get("text") or ""))
        elif kind == _I.CONTEXT_COMPACTION:
            await self.reporter.thought("Codex compacted the conversation context.")

    # -- requests from Codex --------------------------------------------------------------------

    async def on_request(self, method: str, params: dict[str, Any]) -> Any:
        if method == DYNAMIC_TOOL_CALL_METHOD:
            return await self._tool_call(params)
        if method in CODEX_APPROVAL_METHODS:
            return await self._approval(_APPROVALS[CodexApprovalMethod(method)], params)
        if method == "item/tool/requestUserInput":
            return {"answers": {}}
        raise ValueError(f"unsupported request {method}")

    async def _tool_call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = str(params.get("tool") or "")
        raw = params.get("arguments")
        if isinstance(raw, str):
            try:
                raw = json.loads(raw)
            except ValueError:
                raw = {}
        args = raw if isinstance(raw, dict) else {}
        call_id = str(params.get("callId") or "")
        await self.reporter.tool_call(name, args, call_id)
        if name in SELF_CONFIG_TOOLS and self.adapter.config.enable_self_config_tools:
            output, is_error = run_self_config(self.room, name, args)
        else:
            output, is_error = await run_band_tool(
                self.prompt.tools, name, args, self.adapter.additional_tools
            )
        await self.reporter.tool_result(name, output, call_id, is_error=is_error)
        return {"contentItems": [{"type": "inputText", "text": output}], "success": not is_error}

    async def _approval(self, kind: str, params: dict[str, Any]) -> dict[str, Any]:
        if kind == "command":
            summary = str(params.get("command") or "(command)")
            key = self._session_key(summary, params)
        else:
            paths = self._file_paths.get(str(params.get("itemId")), [])
            summary = ", ".join(paths) or str(params.get("grantRoot") or "files")
            key = f"files:{summary}"
        request = ApprovalRequest(kind, summary, key, params.get("reason"))
        self.awaiting_approval += 1
        try:
            decision = await self.adapter.relay.request(
                self.prompt.room_id, self.reporter, request, on_wait=self.prompt.turn.release
            )
        finally:
            self.awaiting_approval -= 1
        offered = params.get("availableDecisions")
        session = decision is Decision.ACCEPT_SESSION and isinstance(offered, list)
        if session and Decision.ACCEPT_SESSION.value not in offered:  # type: ignore[operator]
            decision = Decision.ACCEPT
        return {"decision": decision.value}

    def _session_key(self, command: str, params: dict[str, Any]) -> str:
        if self.adapter.config.session_approval_granularity == "full_command":
            return f"command:{command}"
        actions = params.get("commandActions") or []
        inner = str(actions[0].get("command")) if actions else command
        try:
            words = shlex.split(inner)
        except ValueError:
            words = inner.split()
        return f"binary:{words[0] if words else inner}"
