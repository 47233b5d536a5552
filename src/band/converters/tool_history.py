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
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

from .parsing import (
    INTERRUPTED_TOOL_TEXT,
    ParsedToolCall,
    ParsedToolResult,
    parse_tool_call,
    parse_tool_result,
)

__all__ = [
    "FoldedHistoryConverter",
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


HistoryItem = Said | ToolExchange


def is_own_message(item: dict[str, Any], agent_name: str) -> bool:
    """Whether a raw history item was written by this agent."""
    return bool(agent_name) and (
        item.get("sender_type") == "Agent" and item.get("sender_name") == agent_name
    )


def _speaker(item: dict[str, Any]) -> str:
    return str(item.get("sender_name") or item.get("sender_type") or "Unknown")


def fold_history(raw: list[dict[str, Any]], agent_name: str) -> list[HistoryItem]:
    """Fold raw items (text, tool_call, tool_result; other events ignored) in room order."""
    out: list[HistoryItem] = []
    held: list[Said] = []
    exchange: ToolExchange | None = None

    def close() -> None:
        nonlocal exchange
        if exchange is not None:
            out.append(exchange)
            exchange = None
        out.extend(held)
        held.clear()

    for item in raw:
        kind = item.get("message_type") or "text"
        content = str(item.get("content") or "")
        if kind == "tool_call":
            call = parse_tool_call(content)
            if call is None:
                continue
            if exchange is None or not exchange.open:
                close()
                exchange = ToolExchange()
            exchange.calls.append(call)
        elif kind == "tool_result":
            result = parse_tool_result(content)
            if exchange is None or result is None:
                continue
            if any(c.tool_call_id == result.tool_call_id for c in exchange.calls):
                exchange.results[result.tool_call_id] = result
            if not exchange.open:
                close()
        elif kind == "text" and content.strip():
            own = is_own_message(item, agent_name)
            said = (
                Said("assistant", content)
                if own
                else Said("user", f"[{_speaker(item)}]: {content}")
            )
            if exchange is not None and exchange.open:
                if not own:
                    held.append(said)
            else:
                out.append(said)
    close()
    return out


class FoldedHistoryConverter(ABC, Generic[M]):
    """A history converter on the fold: a subclass writes a said line and a tool exchange in
    its framework's messages (``set_agent_name`` tells which lines are the agent's own)."""

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name

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
