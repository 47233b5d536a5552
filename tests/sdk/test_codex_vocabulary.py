"""band.integrations.codex.types and the coding converters: Codex's errors as failures,
plans, running token totals, and the thread a room's history names."""

from __future__ import annotations

from datetime import datetime

from band.adapters._coding.history import as_coding_history
from band.converters.codex import CodexHistoryConverter
from band.converters.helpers import build_replay_messages, optional_str, parse_iso_datetime
from band.integrations.codex.types import (
    CODEX_APPROVAL_METHODS,
    CodexItemType,
    CodexPlanStep,
    CodexSessionState,
    CodexTokenUsage,
    build_agent_failure,
    parse_plan_steps,
)


def test_a_codex_error_becomes_a_bounded_agent_failure() -> None:
    error = {
        "message": "rate limited",
        "codexErrorInfo": {"type": "usageLimitExceeded", "httpStatus": 429, "retryable": True},
        "additionalDetails": "x" * 5000,
    }
    failure = build_agent_failure(error, thread_id="t1", turn_id="u1", room_id="r1")
    assert (failure.provider, failure.message, failure.code) == (
        "codex",
        "rate limited",
        "usageLimitExceeded",
    )
    detail = failure.detail or {}
    assert detail["codex_http_status"] == 429 and detail["codex_is_retryable"] is True
    assert detail["codex_thread_id"] == "t1" and detail["codex_room_id"] == "r1"
    assert detail["codex_additional_details"].endswith("... [truncated, 2952 more chars]")
    bare = build_agent_failure({})
    assert bare.message == "Codex error: unknown" and bare.detail is None


def test_plan_steps_are_read_from_every_shape_codex_sends() -> None:
    listed = {"plan": [{"step": "a", "status": "completed"}, "b", {"status": "x"}]}
    nested = {"plan": {"steps": [{"text": "c"}]}}
    assert parse_plan_steps(listed) == [CodexPlanStep("a", "completed"), CodexPlanStep("b")]
    assert parse_plan_steps(nested) == [CodexPlanStep("c")]
    assert parse_plan_steps({"plan": "nonsense"}) == []


def test_token_totals_only_grow_and_a_turn_counts_from_its_start() -> None:
    usage = CodexTokenUsage()
    usage.update({"tokenUsage": {"total": {"inputTokens": 100, "outputTokens": 10}}})
    usage.reset_turn_deltas()
    usage.update({"tokenUsage": {"total": {"inputTokens": 150, "outputTokens": 30}}})
    usage.update({"tokenUsage": {"total": {"inputTokens": 120, "outputTokens": 5}}})  # stale
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (150, 30, 180)
    assert (usage.turn_input_tokens, usage.turn_total_tokens) == (50, 70)
    meta = usage.to_metadata()
    assert meta["codex_total_tokens"] == 180 and meta["codex_turn_total_tokens"] == 70
    assert usage.format_summary().startswith("180 tokens: input 150")
    usage.reset_turn_deltas()
    assert "codex_turn_total_tokens" not in usage.to_metadata()


def test_the_latest_thread_in_history_wins_and_archiving_clears_it() -> None:
    def task(meta: dict[str, object]) -> dict[str, object]:
        return {"message_type": "task", "content": "Codex thread", "metadata": meta}

    made = "2026-01-02T03:04:05+00:00"
    raw = [
        task({"codex_thread_id": "t1", "codex_room_id": "r1"}),
        {"message_type": "text", "content": "hi", "sender_name": "Ann"},
        task({"codex_thread_id": "t2", "codex_room_id": "r1", "codex_created_at": made}),
    ]
    state = CodexHistoryConverter().convert(raw)
    assert state == CodexSessionState("t2", "r1", datetime.fromisoformat(made))
    assert state.has_thread()
    archived = CodexHistoryConverter().convert([*raw, task({"codex_thread_id": None})])
    assert not archived.has_thread()
    assert as_coding_history(state, "r1").session_id == "t2"


def test_replay_lines_are_the_rooms_text_messages() -> None:
    raw = [
        {"content": "no type is text", "sender_type": "User"},
        {"message_type": "thought", "content": "hidden"},
        {"message_type": "text", "content": "  ", "sender_name": "Ann"},
        {"message_type": "text", "content": "hello", "sender_name": "Ann"},
    ]
    assert build_replay_messages(raw) == ["[User]: no type is text", "[Ann]: hello"]
    assert optional_str(None) is None and optional_str(3) == "3"
    assert parse_iso_datetime("yesterday") is None


def test_the_vocabulary_is_codexs() -> None:
    assert CodexItemType.COMMAND_EXECUTION == "commandExecution"
    assert "item/fileChange/requestApproval" in CODEX_APPROVAL_METHODS
