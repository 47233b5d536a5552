"""The ACP server's vocabulary: stop reasons, the sessions kept in history, a prompt in flight."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from band_sdk_core import AgentFailure

__all__ = [
    "ACPSessionState",
    "ACPStopReason",
    "ConcurrentPromptError",
    "PendingACPPrompt",
    "PromptOutcome",
]


class ACPStopReason(StrEnum):
    """How a prompt ended, as ``session/prompt`` answers it."""

    END_TURN = "end_turn"
    CANCELLED = "cancelled"


PromptOutcome = ACPStopReason | AgentFailure


class ConcurrentPromptError(ValueError):
    """The session's room already has a prompt waiting for its peers."""


@dataclass
class ACPSessionState:
    """The editor sessions a room's history names (its ``ACP session context`` events)."""

    session_to_room: dict[str, str] = field(default_factory=dict)
    session_cwd: dict[str, str] = field(default_factory=dict)
    session_mcp_servers: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


@dataclass
class PendingACPPrompt:
    """One editor prompt waiting in its room.

    ``waiting_for``: the peers asked (ids) that have not replied yet; once it is empty (and a
    short quiet period passed) the prompt ends ``end_turn``. ``outcome`` is the first
    terminal result; ``done_event`` is set with it.
    """

    session_id: str
    done_event: asyncio.Event = field(default_factory=asyncio.Event)
    outcome: PromptOutcome | None = None
    completion_task: asyncio.Task[None] | None = None
    posted: bool = False
    waiting_for: set[str] = field(default_factory=set)

    def finish(self, outcome: PromptOutcome | None) -> None:
        """Settle once (a later outcome is ignored) and stop a scheduled completion."""
        if self.outcome is None and outcome is not None:
            self.outcome = outcome
        if self.completion_task is not None and self.completion_task is not asyncio.current_task():
            self.completion_task.cancel()
        self.done_event.set()
