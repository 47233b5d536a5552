"""The CrewAI Flow adapter's run state without CrewAI: folding task events back into runs,
loading them from a room over REST (cached), and the history source's opt-in.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from band.adapters._flow_sources import HistoryCrewAIFlowStateSource, RestCrewAIFlowStateSource
from band.converters.crewai_flow import (
    CrewAIFlowAmbiguousIdentityError,
    CrewAIFlowDelegationStatus,
    CrewAIFlowRunStatus,
    CrewAIFlowStateConverter,
    normalize_participant_key,
)
from band.core.exceptions import BandConfigError

NS = "crewai_flow:agent-1"


def record(event_id: str, at: int, **run: Any) -> dict[str, Any]:
    payload = {
        "room_id": "room-1",
        "run_id": "run-1",
        "parent_message_id": "run-1",
        "status": "observed",
        "stage": "initial",
        **run,
    }
    inserted = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=at)
    return {
        "id": event_id,
        "message_type": "task",
        "inserted_at": inserted.isoformat(),
        "metadata": {NS: payload},
    }


def delegation(delegation_id: str, status: str, **fields: Any) -> dict[str, Any]:
    return {
        "delegation_id": delegation_id,
        "target": {"participant_id": delegation_id, "normalized_key": delegation_id},
        "status": status,
        "side_effect_key": f"run-1:delegate:{delegation_id}",
        **fields,
    }


def test_records_fold_in_time_order_merging_delegations_by_id() -> None:
    events = [
        record("e3", 3, status="delegated_pending", stage="delegated",
               delegations=[delegation("b", "pending", delegation_message_id="m-b")]),
        record("e1", 1, status="side_effect_reserved", stage="delegated",
               delegations=[delegation("a", "reserved")], final_message_id=None),
        record("e2", 2, status="delegated_pending", stage="delegated",
               delegations=[delegation("a", "pending", delegation_message_id="m-a")]),
    ]  # fmt: skip
    run = CrewAIFlowStateConverter(metadata_namespace=NS).convert(events).runs["run-1"]
    assert run.status == CrewAIFlowRunStatus.DELEGATED_PENDING
    assert {d.delegation_id: d.delegation_message_id for d in run.delegations} == {
        "a": "m-a",
        "b": "m-b",
    }
    assert all(d.status == CrewAIFlowDelegationStatus.PENDING for d in run.delegations)


def test_a_finished_run_ignores_later_records_and_other_namespaces_are_not_read() -> None:
    events = [
        record("e1", 1, status="finalized", stage="done", final_message_id="m-final"),
        record("e2", 2, status="failed", stage="failed"),
        {**record("e3", 3), "metadata": {"crewai_flow:other": {"run_id": "x"}}},
    ]
    state = CrewAIFlowStateConverter(metadata_namespace=NS).convert(events)
    assert list(state.runs) == ["run-1"]
    assert state.runs["run-1"].status == CrewAIFlowRunStatus.FINALIZED


def test_a_malformed_record_fails_its_run_and_an_old_open_run_ages_out() -> None:
    converter = CrewAIFlowStateConverter(metadata_namespace=NS, max_run_age=timedelta(days=1))
    bad = record("e1", 1, status="no-such-status")
    state = converter.convert([bad, record("e2", 2, run_id="run-2", parent_message_id="run-2")])
    assert state.runs["run-1"].error is not None
    assert state.runs["run-1"].error.code == "malformed_metadata"
    assert state.runs["run-2"].status == CrewAIFlowRunStatus.FAILED
    assert state.runs["run-2"].error is not None
    assert state.runs["run-2"].error.code == "run_aged_out"


def test_participant_keys_resolve_ids_names_and_handles_and_refuse_ambiguity() -> None:
    room = [
        {"id": "11111111-2222-3333-4444-555555555555", "handle": "@team/scout", "name": "Scout"},
        {"id": "66666666-2222-3333-4444-555555555555", "handle": "sage", "name": "Sage"},
    ]
    assert normalize_participant_key("@team/Scout") == "scout"
    assert normalize_participant_key(room[0]["id"], participants=room) == "scout"
    assert normalize_participant_key("Sage", participants=room) == "sage"
    twins = [*room, {"id": "77777777-2222-3333-4444-555555555555", "handle": "scout"}]
    with pytest.raises(CrewAIFlowAmbiguousIdentityError) as caught:
        normalize_participant_key("scout", participants=twins)
    assert caught.value.key == "scout"
    assert len(caught.value.participant_ids) == 2


class PagedRoom:
    """``fetch_room_context`` over a list, failing the first ``failures`` calls."""

    def __init__(self, items: list[dict[str, Any]], failures: int = 0) -> None:
        self.items = items
        self.failures = failures
        self.calls = 0

    async def fetch_room_context(
        self, *, room_id: str, page: int = 1, page_size: int = 50
    ) -> dict[str, Any]:
        self.calls += 1
        if self.failures:
            self.failures -= 1
            raise ConnectionError("the platform blinked")
        start = (page - 1) * page_size
        return {"data": self.items[start : start + page_size], "meta": {}}


async def test_the_rest_source_pages_keeps_only_its_records_and_adds_new_ones_later() -> None:
    chatter = [{"id": f"t{i}", "message_type": "text", "content": "hi"} for i in range(3)]
    room = PagedRoom([*chatter, record("e2", 2), record("e1", 1)], failures=1)
    source = RestCrewAIFlowStateSource(page_size=2, retry_attempts=1)
    first = await source.load_task_events(
        room_id="room-1",
        metadata_namespace=NS,
        tools=room,
        history=None,  # type: ignore[arg-type]
    )
    assert [e["id"] for e in first] == ["e1", "e2"]  # oldest first, chatter left out
    room.items.append(record("e3", 3))
    again = await source.load_task_events(
        room_id="room-1",
        metadata_namespace=NS,
        tools=room,
        history=None,  # type: ignore[arg-type]
    )
    assert [e["id"] for e in again] == ["e1", "e2", "e3"]


def test_sources_refuse_bad_settings_and_the_history_source_must_be_acknowledged() -> None:
    with pytest.raises(BandConfigError):
        RestCrewAIFlowStateSource(page_size=101)
    with pytest.raises(BandConfigError):
        RestCrewAIFlowStateSource(cache_size=0)
    with pytest.raises(BandConfigError, match="acknowledge_test_only"):
        HistoryCrewAIFlowStateSource()
    assert HistoryCrewAIFlowStateSource(acknowledge_test_only=True) is not None
