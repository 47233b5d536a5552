"""``SettlementResult``: what a terminal write (processed, failed) established."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["SettlementResult"]


class SettlementResult(StrEnum):
    """How the platform answered a claim or an acknowledgement.

    ``UNCONFIRMED`` (transport failure, unexpected answer) is safe to retry; ``NOT_FOUND``
    (the message is gone) and ``REJECTED`` (no processing attempt to settle) never succeed.
    """

    ACCEPTED = "accepted"
    UNCONFIRMED = "unconfirmed"
    NOT_FOUND = "not_found"
    REJECTED = "rejected"
