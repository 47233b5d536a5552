"""Failures at the ACP server's edge: a peer's failure read back from its room event, and
the ones the server makes itself (a prompt that timed out, one that could not be sent).

A room's failure event carries the failure as metadata (``to_failure_event``); reading it
back trusts nothing: a malformed record falls back to the event's text, and every message
and detail is passed through credential redaction before it reaches the editor.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import JsonValue, TypeAdapter, ValidationError

from band.core.content import has_visible_content
from band.core.protocols import FAILURE_CODE_TIMEOUT, FailureMetadataKey
from band.core.redaction import redact_credentials, redact_credentials_deep
from band.core.types import PlatformMessage, metadata_to_dict
from band_sdk_core import AgentFailure

__all__ = [
    "ACPFailureProvider",
    "decode_failure",
    "prompt_exception_failure",
    "prompt_timeout_failure",
]

_JSON: TypeAdapter[JsonValue] = TypeAdapter(JsonValue)
_PEER_FAILED = "A Band peer reported a failure."


class ACPFailureProvider(StrEnum):
    """The provider named by failures the Band ACP server makes itself."""

    BAND = "band"


def _valid(record: dict[str, Any]) -> bool:
    provider, message, code = record.get("provider"), record.get("message"), record.get("code")
    return (
        isinstance(provider, str)
        and bool(provider.strip())
        and isinstance(message, str)
        and (code is None or isinstance(code, str))
    )


def decode_failure(msg: PlatformMessage) -> AgentFailure:
    """The failure a room's error event reports (its text when the record is malformed)."""
    record = metadata_to_dict(msg.metadata).get(FailureMetadataKey.FAILURE.value)
    fallback = AgentFailure(
        ACPFailureProvider.BAND, redact_credentials(msg.content.strip() or _PEER_FAILED)
    )
    if not isinstance(record, dict) or not _valid(record):
        return fallback
    try:
        detail = _JSON.validate_python(record.get("detail"))
    except ValidationError:
        return fallback
    message = str(record["message"])
    if not has_visible_content(message):  # the readable text went into the event's content
        message = msg.content.strip() or _PEER_FAILED
    return AgentFailure(
        str(record["provider"]),
        redact_credentials(message),
        code=record.get("code"),
        detail=redact_credentials_deep(detail),
    )


def prompt_timeout_failure(timeout_seconds: float) -> AgentFailure:
    """The failure of a prompt no peer answered within ``timeout_seconds`` (code timeout)."""
    return AgentFailure(
        ACPFailureProvider.BAND,
        f"No answer from the Band peers within {timeout_seconds:g} s",
        code=FAILURE_CODE_TIMEOUT,
    )


def prompt_exception_failure(exc: BaseException) -> AgentFailure:
    """The failure of a prompt that could not be sent: the error, redacted."""
    reason = str(exc).strip() or type(exc).__name__
    return AgentFailure(
        ACPFailureProvider.BAND, redact_credentials(f"The prompt could not be sent: {reason}")
    )
