"""The "working…" indicator of an agent in a room: who is working where, and telling people.

The indicator is set by ``/activity`` (``working: true``, refreshed every few seconds while a
turn runs, ended by ``working: false``; ``services.deliveries.activity``) or by the claim itself: a
``/processing`` that asks for it (``Band-Working: true``, see docs/protocol-decisions.md)
starts it for that message, and that message's ``/processed`` or ``/failed``, or the expiry
of its attempt's lease, ends it. Either way people are told only when the visible state
flips, once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Protocol

from band_protocol import topic
from band_server.fanout.bus import Broadcast, Bus

ACTIVITY_TTL = 10.0
"""Seconds a ``working: true`` report lasts without a refresh (the client refreshes ~3 s)."""


@dataclass
class ActivityBoard:
    """In-memory "is this agent working in this room" flags with a short expiry, and the
    message whose claim set the flag (so that message's end clears it).

    Node-local on purpose: the indicator is cosmetic and refreshed every few seconds.
    """

    ttl: float = ACTIVITY_TTL
    _until: dict[tuple[str, str], float] = field(default_factory=dict)
    _turns: dict[tuple[str, str], str] = field(default_factory=dict)

    def is_working(self, room_id: str, agent_id: str) -> bool:
        until = self._until.get((room_id, agent_id))
        if until is None:
            return False
        if until < time.monotonic():
            del self._until[(room_id, agent_id)]
            self._turns.pop((room_id, agent_id), None)
            return False
        return True

    def report(self, room_id: str, agent_id: str, working: bool) -> bool:
        """Record a report; True when the visible state changed. A refresh keeps the
        message the indicator belongs to."""
        before = self.is_working(room_id, agent_id)
        if working:
            self._until[(room_id, agent_id)] = time.monotonic() + self.ttl
        else:
            self._until.pop((room_id, agent_id), None)
            self._turns.pop((room_id, agent_id), None)
        return before != working

    def start_turn(self, room_id: str, agent_id: str, message_id: str) -> bool:
        """The claim of ``message_id`` set the flag; True when the visible state changed."""
        changed = self.report(room_id, agent_id, True)
        self._turns[(room_id, agent_id)] = message_id
        return changed

    def end_turn(self, room_id: str, agent_id: str, message_id: str) -> bool:
        """``message_id``'s turn ended: clear the flag if that message's claim set it (and
        it was not ended already). True when the visible state changed."""
        if self._turns.get((room_id, agent_id)) != message_id:
            return False
        return self.report(room_id, agent_id, False)


def flipped(agent_id: str, room_id: str, working: bool) -> Broadcast:
    """The people's ``agent_activity`` push of a flip."""
    return Broadcast(
        topic=topic("chat_room", room_id),
        event="agent_activity",
        payload={"agent_id": agent_id, "chat_room_id": room_id, "working": working},
        agents=frozenset(),
        users=True,
    )


class Indicators(Protocol):
    """What the indicator uses of the platform: this node's board and the bus."""

    @property
    def activity(self) -> ActivityBoard: ...

    @property
    def bus(self) -> Bus: ...


def claim_started(
    board: ActivityBoard, agent_id: str, room_id: str, message_id: str
) -> Broadcast | None:
    """After a committed claim of ``message_id`` that asked for the indicator: what
    ``working: true`` records; the people's push when the indicator flipped."""
    if board.start_turn(room_id, agent_id, message_id):
        return flipped(agent_id, room_id, True)
    return None


async def claimed_working(
    platform: Indicators, agent_id: str, room_id: str, message_id: str
) -> None:
    """:func:`claim_started`, its push published (the claim wrote the lease clock itself)."""
    started = claim_started(platform.activity, agent_id, room_id, message_id)
    if started is not None:
        await platform.bus.publish(started)


async def turn_ended(platform: Indicators, agent_id: str, room_id: str, message_id: str) -> None:
    """After a committed end of ``message_id``'s attempt: what ``working: false`` records,
    when that message's claim set the indicator and nothing ended it yet."""
    if platform.activity.end_turn(room_id, agent_id, message_id):
        await platform.bus.publish(flipped(agent_id, room_id, False))
