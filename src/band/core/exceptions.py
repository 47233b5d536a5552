"""The SDK's exception hierarchy: one root, ``BandError``, and a class per failure kind."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

__all__ = [
    "AgentAlreadyRunningError",
    "BandConfigError",
    "BandConnectionError",
    "BandError",
    "BandToolError",
    "CleanupIncompleteError",
    "InputNotAccepted",
    "InvalidToolArgumentsError",
    "MessagePostError",
    "MessagePostKind",
    "ProviderRunError",
    "RoomClosingError",
    "RoomExecutionStoppedError",
    "TurnResultAlreadyReported",
]


class BandError(Exception):
    """Root of every error the SDK raises on purpose."""


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


class BandConfigError(BandError):
    """Setup or lifecycle misuse: wrong constructor arguments, hooks called at the wrong time."""

    @classmethod
    def with_suggestion(
        cls,
        message: str,
        bad_name: str,
        valid_names: Iterable[str],
        *,
        max_distance: int = 2,
    ) -> BandConfigError:
        """Build the error, adding " Did you mean 'x'?" when a valid name is close enough."""
        best: tuple[int, str] | None = None
        for name in sorted(valid_names):
            distance = _levenshtein(bad_name, name)
            if distance <= max_distance and (best is None or distance < best[0]):
                best = (distance, name)
        if best is not None:
            message = f"{message} Did you mean '{best[1]}'?"
        return cls(message)


class AgentAlreadyRunningError(BandConfigError):
    """Another process already runs this agent (host lock or platform conflict)."""


class BandConnectionError(BandError):
    """The platform could not be reached, or the connection was refused."""


class BandToolError(BandError):
    """A platform tool failed in a way the model should hear about (re-raised by tools)."""


class MessagePostKind(StrEnum):
    """Why a message post was refused or is uncertain."""

    UNCONFIRMED_RECIPIENT = "unconfirmed_recipient"
    MENTION_NOT_IN_ROOM = "mentioned_participant_not_in_room"


class MessagePostError(BandToolError):
    """A message post failed for a reason the platform named (see ``kind``).

    An error rebuilt from its message text alone leaves ``kind`` and ``detail`` unset.
    """

    def __init__(
        self, message: str, *, kind: MessagePostKind | None = None, detail: Any = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.detail = detail

    @classmethod
    def classified(cls, kind: MessagePostKind, detail: str) -> MessagePostError:
        """``"<kind>: <detail>"`` with both kept on the error."""
        return cls(f"{kind}: {detail}", kind=kind, detail=detail)


class InvalidToolArgumentsError(BandError, ValueError):
    """A tool was called with arguments its input model refuses."""


class InputNotAccepted(BandError):
    """The runtime did not accept an input (for example, its room is closing)."""


class RoomClosingError(InputNotAccepted, RuntimeError):
    """The room is shutting down and takes no more input."""


class ProviderRunError(BandError):
    """A model provider's run failed with a code (and optional detail)."""

    def __init__(self, code: str, detail: str | None = None) -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code = code
        self.detail = detail


class RoomExecutionStoppedError(BandError):
    """The platform stopped this room's execution; the current turn must end quietly."""

    def __init__(self, room_id: str) -> None:
        super().__init__(f"Room {room_id}: platform execution was stopped")
        self.room_id = room_id


class CleanupIncompleteError(BandError):
    """A previous stop left cleanup pending; call ``stop()`` again to retry it."""


class TurnResultAlreadyReported(Exception):
    """The turn's failure already reached the room; mark the message failed, post nothing."""
