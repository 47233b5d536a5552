"""Turn effects and the ledger that judges whether a turn reached the room."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "MISSING_REPLY_MESSAGE",
    "TurnEffect",
    "TurnLedger",
    "TurnVerdict",
    "missing_reply_message",
]

MISSING_REPLY_MESSAGE = (
    "The agent ended its turn without replying or calling band_no_reply, "
    "so nothing reached the room."
)


def missing_reply_message() -> str:
    """The error text posted when a judged turn ends without a reply."""
    return MISSING_REPLY_MESSAGE


class TurnEffect(StrEnum):
    """What a successful tool call did to the turn."""

    OBSERVE = "observe"
    ACT = "act"
    REPLY = "reply"
    DECLINE = "decline"

    @property
    def did_work(self) -> bool:
        """True for every effect except OBSERVE: the turn produced something."""
        return self is not TurnEffect.OBSERVE


class TurnVerdict(StrEnum):
    """The judgement of a finished turn."""

    COMPLETE = "complete"
    MISSING_REPLY = "missing_reply"


class TurnLedger:
    """Records effects of one turn and gives the verdict.

    Any ACT, REPLY or DECLINE completes the turn; so does ``settle()`` (the adapter ended
    it on purpose) and ``note_reported()`` (a failure already reached the room). Nothing
    or only OBSERVE is a missing reply.
    """

    def __init__(self) -> None:
        self.effects: list[TurnEffect] = []
        self.settled = False
        self.reported = False

    def record(self, effect: TurnEffect | str) -> None:
        self.effects.append(TurnEffect(effect))

    def settle(self) -> None:
        self.settled = True

    def note_reported(self) -> None:
        self.reported = True

    @property
    def replied(self) -> bool:
        return any(e in (TurnEffect.REPLY, TurnEffect.DECLINE) for e in self.effects)

    @property
    def declined(self) -> bool:
        return TurnEffect.DECLINE in self.effects

    @property
    def did_work(self) -> bool:
        return any(e.did_work for e in self.effects)

    @property
    def verdict(self) -> TurnVerdict:
        if self.did_work or self.settled or self.reported:
            return TurnVerdict.COMPLETE
        return TurnVerdict.MISSING_REPLY
