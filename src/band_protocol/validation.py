"""Validation of pushed socket payloads: JSON types and presence only, never formats.

``validate_event_payload(event, payload)`` returns a normalised copy (nulls the SDK
tolerates are replaced by defaults) or raises ``PayloadValidationError``; the runtime
drops an invalid push with an ERROR log. Events without rules pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["PayloadValidationError", "validate_event_payload", "validated_events"]


class PayloadValidationError(ValueError):
    """A pushed payload broke a presence or type rule."""


Check = Callable[[dict[str, Any]], None]
_NO_VALUE = object()


def _fail(field: str, rule: str) -> None:
    raise PayloadValidationError(f"{field}: {rule}")


def _required_str(field: str, *, non_empty: bool = False) -> Check:
    def check(p: dict[str, Any]) -> None:
        value = p.get(field)
        if not isinstance(value, str):
            _fail(field, "required string")
        elif non_empty and not value:
            _fail(field, "must not be empty")

    return check


def _optional_str(field: str, *, key_required: bool = False, nullable: bool = True) -> Check:
    def check(p: dict[str, Any]) -> None:
        value = p.get(field, _NO_VALUE)
        if value is _NO_VALUE:
            if key_required:
                _fail(field, "key required")
            return
        if value is None and nullable:
            return
        if not isinstance(value, str):
            _fail(field, "must be a string" + (" or null" if nullable else ""))

    return check


def _optional_bool(field: str) -> Check:
    def check(p: dict[str, Any]) -> None:
        value = p.get(field)
        if value is not None and not isinstance(value, bool):
            _fail(field, "must be a bool or null")

    return check


def _one_of(field: str, allowed: tuple[str, ...]) -> Check:
    def check(p: dict[str, Any]) -> None:
        if p.get(field) not in allowed:
            _fail(field, f"must be one of {', '.join(allowed)}")

    return check


def _message_extras(p: dict[str, Any]) -> None:
    metadata = p.get("metadata")
    if metadata is None:
        p["metadata"] = {"mentions": []}
    elif not isinstance(metadata, dict):
        _fail("metadata", "must be an object or null")
    else:
        mentions = metadata.get("mentions")
        if mentions is None:
            metadata["mentions"] = []
        elif not isinstance(mentions, list):
            _fail("metadata.mentions", "must be an array or null")
        else:
            for index, mention in enumerate(mentions):
                where = f"metadata.mentions[{index}]"
                if not isinstance(mention, dict):
                    _fail(where, "must be an object")
                _required_str("id", non_empty=True)(mention)
                for key in ("username", "handle", "name"):
                    _optional_str(key)(mention)
    attachments = p.get("attachments")
    if attachments is None:
        p["attachments"] = []
    elif not isinstance(attachments, list):
        _fail("attachments", "must be an array or null")


def _supersede_extras(p: dict[str, Any]) -> None:
    if "retryable" in p and not isinstance(p["retryable"], bool):
        p["retryable"] = False
    if "retry_after" in p and (
        not isinstance(p["retry_after"], int) or isinstance(p["retry_after"], bool)
    ):
        p["retry_after"] = None


_ROOM = [
    _required_str("id"),
    _required_str("inserted_at"),
    _required_str("updated_at"),
    _optional_str("title"),
    _optional_str("task_id"),
]
_MESSAGE = [
    _required_str("id", non_empty=True),
    _required_str("content"),
    _required_str("message_type"),
    _required_str("sender_id", non_empty=True),
    _required_str("sender_type"),
    _optional_str("sender_name"),
    _required_str("inserted_at"),
    _required_str("updated_at"),
    _message_extras,
]
_PARTICIPANT = [_required_str("id", non_empty=True), _required_str("name"), _required_str("type")]

RULES: Mapping[str, list[Check]] = {
    "supersede": [
        _required_str("reason"),
        _required_str("message"),
        _optional_str("correlation_id", key_required=True),
        _optional_str("target_socket_id"),
        _supersede_extras,
    ],
    "agent.control": [
        _one_of("mode", ("interrupt", "stop", "play")),
        _one_of("scope", ("agent", "room")),
        _required_str("agent_id", non_empty=True),
        _optional_str("execution_id", key_required=True),
        _optional_str("room_id", key_required=True),
        _required_str("correlation_id"),
        _optional_str("type", nullable=False),
        _optional_str("reason", nullable=False),
    ],
    "room_added": _ROOM,
    "room_removed": _ROOM,
    "message_created": _MESSAGE,
    "message_updated": _MESSAGE,
    "participant_added": [
        *_PARTICIPANT,
        _optional_str("handle", nullable=False),
        _optional_str("description"),
        _optional_bool("is_remote"),
        _optional_bool("is_external"),
    ],
    "participant_removed": _PARTICIPANT,
    "room_deleted": [_required_str("id", non_empty=True)],
    "contact_request_received": [
        _required_str("id"),
        _required_str("status"),
        _required_str("inserted_at"),
        _optional_str("from_handle"),
        _optional_str("from_name"),
        _optional_str("message"),
    ],
    "contact_request_updated": [_required_str("id"), _required_str("status")],
    "contact_added": [
        _required_str("id"),
        _required_str("type"),
        _required_str("inserted_at"),
        _optional_str("handle", key_required=True),
        _optional_str("name", key_required=True),
        _optional_str("description", nullable=False),
        _optional_bool("is_remote"),
        _optional_bool("is_external"),
    ],
    "contact_removed": [_required_str("id")],
}


def validated_events() -> frozenset[str]:
    """Event names that have validation rules."""
    return frozenset(RULES)


def validate_event_payload(event: str, payload: Any) -> dict[str, Any]:
    """Check a pushed payload; return a normalised copy or raise ``PayloadValidationError``.

    Unknown extra fields are kept. Events without rules only need an object payload.
    """
    if not isinstance(payload, dict):
        raise PayloadValidationError(f"{event}: payload must be an object")
    result: dict[str, Any] = dict(payload)
    if isinstance(result.get("metadata"), dict):
        result["metadata"] = dict(result["metadata"])
    for check in RULES.get(event, ()):
        try:
            check(result)
        except PayloadValidationError as exc:
            raise PayloadValidationError(f"{event}: {exc}") from None
    return result
