"""One Codex turn: its notifications become room events, its requests are answered.

How it works: docs/internals/sdk.md, "Codex: one turn".
"""

from __future__ import annotations

import asyncio
import json
import logging
import shlex
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from band.adapters._coding.approvals import ApprovalRequest, Decision
from band.adapters._tool_events import UsageTotal, run_band_tool
from band.core.types import TurnUsage
from band.integrations.codex.rpc_base import TRANSPORT_CLOSED, JsonRpcId, RpcEvent
from band.integrations.codex.types import (
    CODEX_APPROVAL_METHODS,
    DYNAMIC_TOOL_CALL_METHOD,
    CodexApprovalMethod,
    CodexItemType,
    CodexTokenUsage,
)

from .approvals import PendingApproval, native_approval_key
from .extras import TurnExtras
from .items import call_of, completed_tool_item
from .messages import TurnResult
from .native import NativeTurn
from .process import tool_response
from .room import RoomCodexClient
from .rpc import INTERNAL_ERROR, METHOD_NOT_FOUND, TransportClosed, answer, answer_error
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


def _settle(
    pending: PendingApproval, asked: asyncio.Task[Decision], params: dict[str, Any]
) -> None:
    """The relay's decision settles ``pending``; a session grant Codex did not offer for
    this request is a plain accept."""
    if asked.cancelled() or asked.exception() is not None:
        pending.decide("decline")
        return
    decision = asked.result()
    offered = params.get("availableDecisions")
    session = decision is Decision.ACCEPT_SESSION and isinstance(offered, list)
    if session and Decision.ACCEPT_SESSION.value not in offered:  # type: ignore[operator]
        decision = Decision.ACCEPT
    pending.decide(decision.value)


class CodexTurnRun:
    """Routes one turn's traffic; ``done`` resolves with the completed ``turn`` object.

    ``consume`` reads the native turn's events in arrival order: notifications are handled
    on that task (so an item's events never overtake each other), requests each on a task of
    their own (an approval may wait minutes for the room) that answers under the request's
    id. The process's loss fails ``done`` with ``TransportClosed``.
    """

    def __init__(
        self, adapter: TurnHost, prompt: Prompt, room: RoomCodexClient, native: NativeTurn
    ) -> None:
        self.adapter = adapter
        self.prompt = prompt
        self.room = room
        self.native = native
        self.reporter = prompt.reporter
        self.usage = UsageTotal()
        self.done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.awaiting_approval = 0
        self.extras = TurnExtras(self)
        self.result = TurnResult(self.extras.messages)  # filled in as the turn runs
        held = room.usage.get(self.thread_id)
        if held is not None:
            held.reset_turn_deltas()
        self._file_paths: dict[str, list[str]] = {}
        self._requests: set[asyncio.Task[None]] = set()

    @property
    def thread_id(self) -> str:
        return self.native.thread_id or ""

    @property
    def turn_id(self) -> str | None:
        return self.native.turn_id

    async def consume(self) -> None:
        """Handle the native turn's events until it completes or its process is lost."""
        try:
            while not self.done.done():
                event = await self.native.events.get()
                if isinstance(event, Exception) or event.method == TRANSPORT_CLOSED:
                    reason = event if isinstance(event, Exception) else event.params
                    self._fail(TransportClosed(f"codex app-server went away ({reason})"))
                elif event.is_request:
                    task = asyncio.create_task(self.on_request(event))
                    self._requests.add(task)
                    task.add_done_callback(self._requests.discard)
                else:
                    params = event.params if isinstance(event.params, dict) else {}
                    await self.on_notification(event.method, params)
        except Exception as exc:  # the turn ends with it (``done`` carries it to the adapter)
            logger.warning("Room %s: handling Codex's events failed: %s", self.room.room_id, exc)
            self._fail(exc)

    def _fail(self, error: BaseException) -> None:
        if not self.done.done():
            self.done.set_exception(error)

    async def close(self) -> None:
        """Stop the requests still being answered (the turn is over)."""
        for task in list(self._requests):
            task.cancel()
        if self._requests:
            await asyncio.wait(set(self._requests))

    # -- notifications --------------------------------------------------------------------------

    async def on_notification(self, method: str, params: dict[str, Any]) -> None:
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

    async def on_request(self, event: RpcEvent) -> None:
        """Answer one of Codex's requests under its id."""
        assert event.id is not None  # nosec B101 # a request always carries its id
        params = event.params if isinstance(event.params, dict) else {}
        client = self.native.client
        try:
            if event.method == DYNAMIC_TOOL_CALL_METHOD:
                await answer(client, event.id, await self._tool_call(params))
            elif event.method in CODEX_APPROVAL_METHODS:
                pending = await self._approval(event.id, event.method, params)
                await answer(client, pending.request_id, pending.response())
            elif event.method == "item/tool/requestUserInput":
                await answer(client, event.id, {"answers": {}})
            else:
                message = f"Unhandled server request: {event.method}"
                await answer_error(client, event.id, METHOD_NOT_FOUND, message)
        except Exception as exc:
            logger.warning("Room %s: request %s failed: %s", self.room.room_id, event.method, exc)
            await answer_error(client, event.id, INTERNAL_ERROR, str(exc))

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
        return tool_response(output, success=not is_error)

    async def _approval(
        self, request_id: JsonRpcId, method: str, params: dict[str, Any]
    ) -> PendingApproval:
        """Ask the room (through the relay) and return the settled request."""
        if method == CodexApprovalMethod.COMMAND_EXECUTION:
            summary = str(params.get("command") or "(command)")
            key = self._session_key(summary, params)
        else:
            paths = self._file_paths.get(str(params.get("itemId")), [])
            summary = ", ".join(paths) or str(params.get("grantRoot") or "files")
            key = f"files:{summary}"
        pending = PendingApproval(
            request_id=request_id,
            method=method,
            summary=summary,
            created_at=datetime.now(UTC),
            future=asyncio.get_running_loop().create_future(),
            session_key=key,
            native_key=native_approval_key(request_id, params),
        )
        self.room.register_approval(pending)
        kind = _APPROVALS[CodexApprovalMethod(method)]
        request = ApprovalRequest(kind, summary, key, params.get("reason"))
        asking = asyncio.create_task(
            self.adapter.relay.request(
                self.prompt.room_id, self.reporter, request, on_wait=self.prompt.turn.release
            )
        )
        asking.add_done_callback(lambda done: _settle(pending, done, params))
        self.awaiting_approval += 1
        try:
            await asyncio.wait({pending.future})
        finally:
            self.awaiting_approval -= 1
            self.room.drop_approval(pending)
            if not asking.done():  # settled otherwise (replaced, or its process lost)
                asking.cancel()
        return pending

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
