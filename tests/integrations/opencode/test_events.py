"""band.integrations.opencode.events: OpenCode's ``/event`` payloads as typed records, with
odd payloads read as far as they go and never raising."""

from __future__ import annotations

from typing import Any

import pytest

from band.core.types import TurnUsage
from band.integrations.opencode import (
    UNKNOWN_OPENCODE_ERROR,
    MessagePartDeltaEvent,
    MessagePartUpdatedEvent,
    MessageUpdatedEvent,
    OpencodeErrorInfo,
    OpencodeToolStatus,
    PermissionAskedEvent,
    QuestionAskedEvent,
    SessionErrorEvent,
    SessionIdleEvent,
    UnknownOpencodeEvent,
    describe_error,
    parse_opencode_event,
)


def test_each_followed_event_type_becomes_its_record() -> None:
    cases: list[tuple[dict[str, Any], type]] = [
        ({"type": "message.updated", "properties": {"info": {"id": "m"}}}, MessageUpdatedEvent),
        ({"type": "message.part.updated", "properties": {}}, MessagePartUpdatedEvent),
        ({"type": "message.part.delta", "properties": {}}, MessagePartDeltaEvent),
        ({"type": "permission.asked", "properties": {"id": "p"}}, PermissionAskedEvent),
        ({"type": "question.asked", "properties": {"id": "q"}}, QuestionAskedEvent),
        ({"type": "session.error", "properties": {}}, SessionErrorEvent),
        ({"type": "session.idle", "properties": {"sessionID": "s"}}, SessionIdleEvent),
    ]
    for raw, kind in cases:
        assert type(parse_opencode_event(raw)) is kind


def test_camel_case_keys_are_read_and_the_session_found() -> None:
    event = parse_opencode_event(
        {
            "type": "message.part.updated",
            "properties": {
                "part": {
                    "id": "prt",
                    "sessionID": "ses",
                    "messageID": "msg",
                    "type": "tool",
                    "tool": "bash",
                    "callID": "call",
                    "state": {"status": "completed", "input": {"command": "ls"}, "output": ""},
                    "somethingNew": 1,
                }
            },
        }
    )
    assert isinstance(event, MessagePartUpdatedEvent)
    part = event.properties.part
    assert part is not None and event.session_id == "ses"
    assert (part.message_id, part.call_id, part.tool) == ("msg", "call", "bash")
    assert part.state is not None and part.state.status == OpencodeToolStatus.COMPLETED
    # An output that is there but empty is reported as it is; an absent one as "".
    assert part.state.has_output and part.state.reported_output == ""
    assert part.model_extra == {"somethingNew": 1}


def test_unknown_and_unreadable_events_become_unknown_records() -> None:
    unknown = parse_opencode_event({"type": "server.connected", "properties": {}})
    assert isinstance(unknown, UnknownOpencodeEvent) and unknown.type == "server.connected"
    broken = parse_opencode_event({"type": "session.idle", "properties": "not an object"})
    assert isinstance(broken, UnknownOpencodeEvent) and broken.session_id is None
    assert isinstance(parse_opencode_event({}), UnknownOpencodeEvent)


def test_a_malformed_corner_is_dropped_and_the_event_kept() -> None:
    event = parse_opencode_event(
        {
            "type": "message.updated",
            "properties": {"info": {"id": "m", "role": "assistant", "tokens": "lots"}},
        }
    )
    assert isinstance(event, MessageUpdatedEvent)
    info = event.properties.info
    assert info is not None and info.tokens is None and info.role == "assistant"


@pytest.mark.parametrize("request_id", [7, "per_1"])
def test_a_permission_ask_keeps_its_id_whatever_its_type(request_id: Any) -> None:
    event = parse_opencode_event(
        {
            "type": "permission.asked",
            "properties": {
                "id": request_id,
                "sessionID": "s",
                "permission": "bash",
                "patterns": ["ls", None, 3],
                "metadata": "junk",
            },
        }
    )
    assert isinstance(event, PermissionAskedEvent)
    ask = event.properties
    assert ask.id == str(request_id) and ask.patterns == ["ls", "3"] and ask.metadata == {}


def test_questions_that_are_not_objects_are_left_out() -> None:
    event = parse_opencode_event(
        {
            "type": "question.asked",
            "properties": {"id": "q", "questions": [{"question": "Which?"}, "junk", {}]},
        }
    )
    assert isinstance(event, QuestionAskedEvent)
    assert [q.question for q in event.properties.questions] == ["Which?", "Question"]


def test_tokens_count_reasoning_as_output() -> None:
    event = parse_opencode_event(
        {
            "type": "message.updated",
            "properties": {
                "info": {
                    "id": "m",
                    "tokens": {
                        "input": 10,
                        "output": 5,
                        "reasoning": 2,
                        "cache": {"read": 3, "write": 1},
                    },
                }
            },
        }
    )
    assert isinstance(event, MessageUpdatedEvent)
    assert event.properties.info is not None and event.properties.info.tokens is not None
    assert event.properties.info.tokens.to_turn_usage() == TurnUsage(
        input_tokens=10, output_tokens=7, cache_read_tokens=3, cache_write_tokens=1
    )


def test_errors_are_described_in_words() -> None:
    assert describe_error(None) == UNKNOWN_OPENCODE_ERROR
    error = OpencodeErrorInfo.model_validate({"name": "APIError", "data": {"message": "bad key"}})
    assert describe_error(error) == "APIError: bad key"
    assert OpencodeErrorInfo.model_validate("plain text").data == {"message": "plain text"}
    assert OpencodeErrorInfo.model_validate({}).is_empty
    event = parse_opencode_event(
        {"type": "session.error", "properties": {"sessionID": "s", "error": "it broke"}}
    )
    assert isinstance(event, SessionErrorEvent)
    assert describe_error(event.properties.error).endswith("it broke")
