"""``Turn``: the ledger of one turn's tool effects, and the verdict the runtime acts on."""

from __future__ import annotations

import logging
from typing import Any, Protocol

from band_protocol import AgentFailure, TurnEffect, TurnLedger, TurnVerdict, missing_reply_message

__all__ = [
    "MISSING_REPLY",
    "Turn",
    "TurnEffect",
    "TurnVerdict",
    "judge_detached_turn",
    "report_unsettled_turn",
]

logger = logging.getLogger("band.core.turn")
# What a turn that ended without a reply reports to the room.
MISSING_REPLY = AgentFailure("band-runtime", missing_reply_message())


class Turn:
    """Records what each successful tool call did during one turn.

    One ``Turn`` per tools instance (so per turn). The runtime reads the verdict after
    ``on_message`` returns: ``complete`` is False when nothing but reads and events
    happened, which the SDK reports as a missing reply.
    """

    def __init__(self, *, posts_missing_reply: bool = True) -> None:
        self._ledger = TurnLedger()
        self.judged = True
        self.posts_missing_reply = posts_missing_reply
        self._detached = False

    def record(self, effect: TurnEffect | str) -> None:
        """Record a successful call's effect (unknown values raise ValueError)."""
        self._ledger.record(effect)

    def settle(self) -> None:
        """The adapter ended the turn itself (a notice-only or control turn)."""
        self._ledger.settle()

    def note_reported(self) -> None:
        """A failure already reached the room: the turn is complete, skip generic notices."""
        self._ledger.note_reported()

    def detach(self) -> None:
        """Stop judging this turn (its work continues outside the turn)."""
        self._detached = True

    @property
    def detached(self) -> bool:
        return self._detached

    @property
    def effects(self) -> tuple[TurnEffect, ...]:
        return tuple(self._ledger.effects)

    @property
    def replied(self) -> bool:
        """A reply was sent or the agent declined (band_no_reply)."""
        return self._ledger.replied

    @property
    def declined(self) -> bool:
        return self._ledger.declined

    @property
    def did_work(self) -> bool:
        """Any ACT, REPLY or DECLINE was recorded."""
        return self._ledger.did_work

    @property
    def settled(self) -> bool:
        return self._ledger.settled

    @property
    def failure_reported(self) -> bool:
        """``send_failure`` posted a failure; the runtime must not post its generic notice."""
        return self._ledger.reported

    @property
    def verdict(self) -> TurnVerdict:
        return self._ledger.verdict

    @property
    def complete(self) -> bool:
        return self._ledger.verdict is TurnVerdict.COMPLETE

    def __repr__(self) -> str:
        effects = ",".join(self._ledger.effects)
        return f"Turn(effects=[{effects}], verdict={self.verdict})"


class _TurnTools(Protocol):
    """What judging needs of ``AgentToolsProtocol``: its ledger and ``send_failure``."""

    @property
    def turn(self) -> Turn: ...

    async def send_failure(self, failure: AgentFailure) -> Any: ...


async def report_unsettled_turn(tools: _TurnTools, *, room_id: str) -> bool:
    """Report a turn that ended without a reply (when its tools post that); True if it did."""
    turn = tools.turn
    if turn.complete:
        return False
    logger.warning("Room %s: turn ended without a reply (detached=%s)", room_id, turn.detached)
    if turn.posts_missing_reply:
        await tools.send_failure(MISSING_REPLY)
    return True


async def judge_detached_turn(tools: _TurnTools, *, room_id: str) -> None:
    """Judge a detached turn when the adapter's work on it really ends.

    ``run_judged_turn`` returns before such a turn ends; attached turns were judged there,
    and an unjudged turn is never reported.
    """
    if tools.turn.judged and tools.turn.detached:
        await report_unsettled_turn(tools, room_id=room_id)
