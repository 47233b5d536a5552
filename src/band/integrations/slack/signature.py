"""Slack's request signatures (``v0`` HMAC-SHA256 of ``v0:<timestamp>:<body>``), checked with
``slack_sdk``'s verifier; requests older or newer than five minutes are refused."""

from __future__ import annotations

from band._extras import needs_extra

with needs_extra("the Slack bridge needs slack-sdk", "slack"):
    from slack_sdk.signature import Clock, SignatureVerifier

__all__ = ["MAX_TIMESTAMP_SKEW_SECONDS", "verify_signature"]

MAX_TIMESTAMP_SKEW_SECONDS = 5 * 60


class _At(Clock):
    def __init__(self, now: float) -> None:
        self._now = now

    def now(self) -> float:
        return self._now


def verify_signature(
    *, signing_secret: str, body: bytes, timestamp: str, signature: str, now: float | None = None
) -> bool:
    """True only for a well-formed, current signature of ``body`` by ``signing_secret``."""
    if not signing_secret or not timestamp or not signature:
        return False
    clock = Clock() if now is None else _At(now)
    verifier = SignatureVerifier(signing_secret, clock=clock)
    try:
        return bool(verifier.is_valid(body=body, timestamp=timestamp, signature=signature))
    except ValueError:  # a timestamp that is not a number
        return False
