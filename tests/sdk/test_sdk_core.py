"""band_sdk_core and exceptions: AgentFailure, payload validation, config suggestions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from band.core.exceptions import BandConfigError, ProviderRunError, RoomExecutionStoppedError
from band.core.types import PlatformMessage
from band_sdk_core import AgentFailure, PayloadValidationError, validate_event_payload


def test_agent_failure() -> None:
    failure = AgentFailure("openai", "rate limited", code="429")
    assert failure.to_dict() == {
        "provider": "openai",
        "code": "429",
        "message": "rate limited",
        "detail": None,
    }
    assert failure.to_extension_data() == {"band.ai/failure": failure.to_dict()}
    assert failure != AgentFailure("openai", "rate limited", code="429")
    with pytest.raises(TypeError):
        AgentFailure(1, "x")  # type: ignore[arg-type]


MESSAGE: dict[str, Any] = {
    "id": "m1",
    "content": "hi",
    "message_type": "text",
    "sender_id": "u1",
    "sender_type": "User",
    "inserted_at": "2026-05-01T10:00:00.000000Z",
    "updated_at": "2026-05-01T10:00:00.000000Z",
    "extra": 1,
}


def test_message_payload_normalised() -> None:
    checked = validate_event_payload("message_created", {**MESSAGE, "metadata": None})
    assert checked["metadata"] == {"mentions": []} and checked["attachments"] == []
    assert checked["extra"] == 1


@pytest.mark.parametrize(
    ("event", "payload"),
    [
        ("message_created", {**MESSAGE, "id": ""}),
        ("message_created", {**MESSAGE, "metadata": "x"}),
        ("message_created", {**MESSAGE, "metadata": {"mentions": [{"handle": "a"}]}}),
        ("participant_added", {"id": "p", "name": "P", "type": "User", "handle": None}),
        ("room_added", {"id": "r"}),
        ("agent.control", {"mode": "pause", "scope": "agent", "agent_id": "a"}),
        ("contact_added", {"id": "c", "type": "User", "inserted_at": "t"}),
        ("supersede", "not an object"),
    ],
)
def test_invalid_payloads_are_refused(event: str, payload: Any) -> None:
    with pytest.raises(PayloadValidationError):
        validate_event_payload(event, payload)


def test_control_and_supersede_payloads() -> None:
    control = {
        "mode": "stop",
        "scope": "room",
        "agent_id": "a",
        "execution_id": None,
        "room_id": "r",
        "correlation_id": "c1",
    }
    assert validate_event_payload("agent.control", control) == control
    sup = validate_event_payload(
        "supersede",
        {"reason": "superseded", "message": "m", "correlation_id": None, "retry_after": "x"},
    )
    assert sup["retry_after"] is None
    assert validate_event_payload("event_created", {"anything": 1}) == {"anything": 1}


def test_exception_messages() -> None:
    error = BandConfigError.with_suggestion("Unknown tool 'band_sned'.", "band_sned", ["band_send"])
    assert str(error) == "Unknown tool 'band_sned'. Did you mean 'band_send'?"
    assert str(BandConfigError.with_suggestion("Bad.", "zzzz", ["band_send"])) == "Bad."
    assert str(RoomExecutionStoppedError("r1")) == "Room r1: platform execution was stopped"
    assert str(ProviderRunError("timeout", "slow")) == "timeout: slow"
    assert str(ProviderRunError("timeout")) == "timeout"


def test_platform_message_format_for_llm() -> None:
    def msg(name: str | None, sender_type: str) -> PlatformMessage:
        return PlatformMessage(
            "m", "r", "hello", "u", sender_type, name, "text", {}, datetime.now(UTC)
        )

    assert msg("Alice", "User").format_for_llm() == "[Alice]: hello"
    assert msg(None, "User").format_for_llm() == "[User]: hello"
    assert msg(None, "").format_for_llm() == "[Unknown]: hello"
