"""Re-export of the SDK's shared core, which now lives in ``band_protocol``; the path stays."""

from band_protocol.failure import AgentFailure
from band_protocol.turn import (
    MISSING_REPLY_MESSAGE,
    TurnEffect,
    TurnLedger,
    TurnVerdict,
    missing_reply_message,
)
from band_protocol.validation import (
    PayloadValidationError,
    validate_event_payload,
    validated_events,
)

__all__ = [
    "MISSING_REPLY_MESSAGE",
    "AgentFailure",
    "PayloadValidationError",
    "TurnEffect",
    "TurnLedger",
    "TurnVerdict",
    "missing_reply_message",
    "validate_event_payload",
    "validated_events",
]
