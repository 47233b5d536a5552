"""``NativeTurn``: which of a room's app-server events belong to the Band turn now running.

One ``codex app-server`` runs a room's thread, and its events (notifications and requests)
arrive on one stream. The turn that ``turn/start`` started owns those naming its turn id;
events that come before ``turn/start`` answers wait in ``early``. Sub-agents the turn
delegates to ask under their own thread, which Codex names only in the turn's own
collaboration items, so their requests wait in ``unattributed`` until an item names it.
Whatever no turn owns is refused by the process (a request is answered, never left open).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from band.integrations.codex.rpc_base import RpcEvent
from band.integrations.codex.types import CodexItemType

from .rpc import CodexClientProtocol

__all__ = ["NativeTurn", "delegated_threads", "native_turn_id", "thread_of", "undelivered"]


def _params(event: RpcEvent) -> dict[str, object]:
    return event.params if isinstance(event.params, dict) else {}


def native_turn_id(event: RpcEvent) -> str | None:
    """The native turn ``event`` names: its ``turnId``, else ``turn.id`` (as ``turn/started``
    and ``turn/completed`` carry it)."""
    params = _params(event)
    turn_id = params.get("turnId")
    turn = params.get("turn")
    if turn_id is None and isinstance(turn, dict):
        turn_id = turn.get("id")
    return str(turn_id) if turn_id else None


def thread_of(event: RpcEvent) -> str | None:
    thread_id = _params(event).get("threadId")
    return str(thread_id) if thread_id else None


def delegated_threads(event: RpcEvent) -> set[str]:
    """The sub-agent threads an item says the turn spawned or spoke to."""
    item = _params(event).get("item")
    if not isinstance(item, dict):
        return set()
    kind = item.get("type")
    if kind == CodexItemType.COLLAB_AGENT_TOOL_CALL:
        threads = list(item.get("receiverThreadIds") or ())
    elif kind == CodexItemType.SUB_AGENT_ACTIVITY:
        threads = [item.get("agentThreadId")]
    else:
        return set()
    return {str(thread) for thread in threads if thread}


@dataclass
class NativeTurn:
    """The Band turn that started one native Codex turn, and the events addressed to it.

    ``events`` is what the turn consumes, in arrival order; an exception there (or a
    ``transport/closed`` event) is the process's end, also kept as ``loss``.
    ``generation`` is the room's process the turn runs on: a later process never feeds it.
    """

    client: CodexClientProtocol
    generation: int
    thread_id: str | None = None
    turn_id: str | None = None
    events: asyncio.Queue[RpcEvent | Exception] = field(default_factory=asyncio.Queue)
    early: list[RpcEvent] = field(default_factory=list)
    sub_agents: set[str] = field(default_factory=set)
    unattributed: list[RpcEvent] = field(default_factory=list)
    loss: RpcEvent | Exception | None = None

    @property
    def lost(self) -> bool:
        return self.loss is not None

    def owns(self, event: RpcEvent) -> bool:
        """An event naming this turn, or a request from a sub-agent it delegated to (their
        notifications, such as their own ``turn/completed``, never end this turn)."""
        if self.turn_id is not None and native_turn_id(event) == self.turn_id:
            return True
        return event.is_request and thread_of(event) in self.sub_agents

    def may_own(self, event: RpcEvent) -> bool:
        """A request from another thread, which a later item of this turn may name."""
        return event.is_request and thread_of(event) not in (None, self.thread_id)

    def deliver(self, event: RpcEvent) -> None:
        """Queue an owned event, then the held requests of the sub-agents it names."""
        self.events.put_nowait(event)
        named = delegated_threads(event) - self.sub_agents
        if not named:
            return
        self.sub_agents |= named
        held, self.unattributed = self.unattributed, []
        for request in held:
            if self.owns(request):
                self.events.put_nowait(request)
            else:
                self.unattributed.append(request)

    def claim(self, event: RpcEvent) -> bool:
        """Deliver or hold ``event``; False when this turn can never own it."""
        if self.owns(event):
            self.deliver(event)
        elif self.may_own(event):
            self.unattributed.append(event)
        else:
            return False
        return True

    def lose(self, cause: RpcEvent | Exception) -> None:
        """The process's events stopped: the turn ends with ``cause`` after what is queued."""
        self.loss = cause
        self.events.put_nowait(cause)


def undelivered(native: NativeTurn) -> list[RpcEvent]:
    """Events still waiting for ``native`` when its Band turn ends (they get refused)."""
    queued = [native.events.get_nowait() for _ in range(native.events.qsize())]
    return [
        *native.early,
        *(event for event in queued if isinstance(event, RpcEvent)),
        *native.unattributed,
    ]
