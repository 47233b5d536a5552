"""Folding raw room history into said lines and paired tool exchanges.

Provider converters (OpenAI Chat, Anthropic) share this walk and only render its output:
a :class:`Said` is one line of conversation, a :class:`ToolExchange` is a group of tool
calls with one result per call, paired by ``tool_call_id``. The walk keeps provider rules
that every tool API shares: a call is always followed by its result, so text that arrived
while a call was open is held back until the exchange closes, the agent's own text sent
during a call is dropped (it is already in the call's arguments), and a call that never got
a result is answered with ``INTERRUPTED_TOOL_TEXT``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from ._named import AgentNamed
from .parsing import (
    INTERRUPTED_TOOL_TEXT,
    ParsedToolCall,
    ParsedToolResult,
    parse_tool_call,
    parse_tool_result,
)

__all__ = [
    "FoldedHistoryConverter",
    "HistoryFolder",
    "HistoryItem",
    "Said",
    "ToolExchange",
    "fold_history",
    "is_own_message",
]

M = TypeVar("M")


@dataclass(frozen=True)
class Said:
    """One text line: the agent's own reply (``assistant``) or anyone else's (``user``)."""

    role: Literal["user", "assistant"]
    text: str


@dataclass
class ToolExchange:
    """Tool calls made together and their results, in call order."""

    calls: list[ParsedToolCall] = field(default_factory=list)
    results: dict[str, ParsedToolResult] = field(default_factory=dict)

    @property
    def open(self) -> bool:
        return any(call.tool_call_id not in self.results for call in self.calls)

    def paired(self) -> list[tuple[ParsedToolCall, ParsedToolResult]]:
        """Each call with its result; unanswered calls get the interrupted error."""
        return [
            (
                call,
                self.results.get(call.tool_call_id)
                or ParsedToolResult(call.name, INTERRUPTED_TOOL_TEXT, call.tool_call_id, True),
            )
            for call in self.calls
        ]

    def blocks(
        self,
        call_block: Callable[[ParsedToolCall], dict[str, Any]],
        result_block: Callable[[ParsedToolCall, ParsedToolResult], dict[str, Any]],
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The call blocks and the result blocks, paired; a failed result's block gets
        ``is_error: True`` (left out otherwise)."""
        calls: list[dict[str, Any]] = []
        results: list[dict[str, Any]] = []
        for call, result in self.paired():
            calls.append(call_block(call))
            block = result_block(call, result)
            if result.is_error:
                block["is_error"] = True
            results.append(block)
        return calls, results


HistoryItem = Said | ToolExchange


def is_own_message(item: dict[str, Any], agent_name: str) -> bool:
    """Whether a raw history item was written by this agent."""
    return bool(agent_name) and (
        item.get("sender_type") == "Agent" and item.get("sender_name") == agent_name
    )


def _speaker(item: dict[str, Any]) -> str:
    return str(item.get("sender_name") or item.get("sender_type") or "Unknown")


class HistoryFolder:
    """The walk of :func:`fold_history`, one event at a time (``items`` once ``finish``ed)."""

    def __init__(self) -> None:
        self.items: list[HistoryItem] = []
        self._held: list[Said] = []
        self._exchange: ToolExchange | None = None

    @property
    def in_exchange(self) -> bool:
        """Whether a call is still waiting for its result."""
        return self._exchange is not None and self._exchange.open

    def awaits(self, tool_call_id: str) -> bool:
        """Whether the open exchange has a call ``tool_call_id`` without its result."""
        exchange = self._exchange
        return exchange is not None and any(
            c.tool_call_id == tool_call_id and tool_call_id not in exchange.results
            for c in exchange.calls
        )

    def call(self, call: ParsedToolCall) -> None:
        if self._exchange is None or not self._exchange.open:
            self._close()
            self._exchange = ToolExchange()
        self._exchange.calls.append(call)

    def result(self, result: ParsedToolResult) -> None:
        """Pair ``result`` with its call; a result for no call of the exchange is dropped."""
        if self._exchange is None:
            return
        if any(c.tool_call_id == result.tool_call_id for c in self._exchange.calls):
            self._exchange.results[result.tool_call_id] = result
        if not self._exchange.open:
            self._close()

    def say(self, said: Said, *, drop_in_exchange: bool = False) -> None:
        """A line; held back while a call is open (or dropped, with ``drop_in_exchange``)."""
        if self.in_exchange:
            if not drop_in_exchange:
                self._held.append(said)
        else:
            self.items.append(said)

    def finish(self) -> list[HistoryItem]:
        self._close()
        return self.items

    def _close(self) -> None:
        if self._exchange is not None:
            self.items.append(self._exchange)
            self._exchange = None
        self.items.extend(self._held)
        self._held.clear()


def fold_history(raw: list[dict[str, Any]], agent_name: str) -> list[HistoryItem]:
    """Fold raw items (text, tool_call, tool_result; other events ignored) in room order."""
    folder = HistoryFolder()
    for item in raw:
        kind = item.get("message_type") or "text"
        content = str(item.get("content") or "")
        if kind == "tool_call":
            call = parse_tool_call(content)
            if call is not None:
                folder.call(call)
        elif kind == "tool_result":
            result = parse_tool_result(content)
            if result is not None:
                folder.result(result)
        elif kind == "text" and content.strip():
            own = is_own_message(item, agent_name)
            said = (
                Said("assistant", content)
                if own
                else Said("user", f"[{_speaker(item)}]: {content}")
            )
            folder.say(said, drop_in_exchange=own)
    return folder.finish()


class FoldedHistoryConverter(AgentNamed, ABC, Generic[M]):
    """A history converter on the fold: a subclass writes a said line and a tool exchange in
    its framework's messages (``set_agent_name`` tells which lines are the agent's own)."""

    def convert(self, raw: list[dict[str, Any]]) -> list[M]:
        messages: list[M] = []
        for item in fold_history(raw, self.agent_name):
            messages.extend(self.said(item) if isinstance(item, Said) else self.exchange(item))
        return messages

    @abstractmethod
    def said(self, line: Said) -> list[M]:
        """The messages of one line of conversation."""

    @abstractmethod
    def exchange(self, tools: ToolExchange) -> list[M]:
        """The messages of tool calls and their results."""
