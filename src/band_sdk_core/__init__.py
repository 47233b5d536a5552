"""Tiny pure-Python core shared by the SDK: failures, turn ledger and payload validation."""

from .failure import AgentFailure
from .turn import MISSING_REPLY_MESSAGE, TurnEffect, TurnLedger, TurnVerdict, missing_reply_message
from .validation import PayloadValidationError, validate_event_payload, validated_events

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
