"""Runtime parts band-sdk exposes on their own: decisions, room executions, the working-state
reporter, resync timing, turn scopes, turn-effect recording, capability pruning."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from band.core.turn import Turn
from band.core.turn_lifecycle import TurnTask
from band.core.types import AdapterFeatures, Capability
from band.runtime.capabilities import prune_unsupported, with_hub_room_contacts
from band.runtime.context_serialization import context_item_to_dict
from band.runtime.cycle import TurnScope
from band.runtime.decisions import DecisionRegistry, Timeout
from band.runtime.participants import participant_snapshot
from band.runtime.resync import ResyncSchedule
from band.runtime.rooms import RoomExecutions
from band.runtime.turn import records_turn_effects
from band.runtime.working_state import WorkingStateReporter


async def test_a_decision_is_answered_once_and_a_timeout_claims_what_nobody_answered() -> None:
    registry: DecisionRegistry[str] = DecisionRegistry(max_pending=2)
    first = registry.register_minted("approve rm -rf?").entry
    second = registry.register_keyed("deploy?", key="req-2")
    assert second is not None
    third = registry.register_minted("third")
    assert third.evicted is first  # past max_pending the oldest open ask goes
    assert registry.try_claim(second.entry.token) is second.entry
    assert registry.try_claim(second.entry.token) is None  # one answer only
    assert registry.register_keyed("again", key="req-2") is None  # claimed: no redelivery
    timed_out: list[str] = []

    async def on_timeout(entry: Any) -> None:
        timed_out.append(entry.payload)

    registry.start_timeout(third.entry, 0.01, on_timeout)
    await asyncio.sleep(0.05)
    assert timed_out == ["third"]
    answer: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    fourth = registry.register_minted("late").entry
    assert await registry.wait(fourth, answer, timeout_s=0.01) is Timeout.TIMED_OUT
    assert fourth.token not in registry


@dataclass
class FakeExecution:
    room_id: str
    log: list[str]
    events: list[Any] = field(default_factory=list)

    async def start(self) -> None:
        self.log.append(f"start {self.room_id}")

    async def on_event(self, event: Any) -> None:
        self.events.append(event)

    async def stop(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109 - the protocol's signature
        self.log.append(f"stop {self.room_id}")
        return True


async def test_room_executions_admit_route_held_events_and_retire() -> None:
    log: list[str] = []
    built: dict[str, FakeExecution] = {}

    def build(room_id: str) -> FakeExecution:
        built[room_id] = FakeExecution(room_id, log)
        return built[room_id]

    async def release(room_id: str) -> None:
        log.append(f"release {room_id}")

    rooms = RoomExecutions(build=build, release=release)
    rooms.request_admission("r1")
    rooms.hold("r1", "early event")
    execution = await rooms.admit("r1")
    assert execution is built["r1"] and rooms.serving("r1")
    assert built["r1"].events == ["early event"]
    rooms.hold("ghost", "x")  # not wanted: dropped
    assert await rooms.destroy("r1", timeout=1) is True
    assert log == ["start r1", "stop r1", "release r1"]
    assert not rooms.wanted("r1") and rooms.room_ids() == []
    rooms.close(timeout=0)
    with pytest.raises(RuntimeError, match="stopping"):
        await rooms.admit("r2")


async def test_the_working_state_is_refreshed_then_cleared_even_when_cancelled() -> None:
    sent: list[bool] = []

    async def report(working: bool) -> None:
        sent.append(working)

    reporter = WorkingStateReporter(report, keep_alive_seconds=0.01)
    await reporter.start()
    await asyncio.sleep(0.035)
    await reporter.stop()
    assert sent[0] is True and sent[-1] is False and sent.count(True) >= 3
    capped: list[bool] = []

    async def record(working: bool) -> None:
        capped.append(working)

    limited = WorkingStateReporter(record, keep_alive_seconds=0.01, max_working_state_seconds=0.015)
    await limited.start()
    await asyncio.sleep(0.06)
    assert capped.count(True) <= 2  # refreshes paused at the cap; the cycle went on
    await limited.stop()
    assert capped[-1] is False
    with pytest.raises(ValueError):
        WorkingStateReporter(record, keep_alive_seconds=0)


def test_resync_grows_when_empty_resets_on_work_and_holds_while_stopped() -> None:
    schedule = ResyncSchedule(10, 35, stopped=5)
    schedule.start(0)
    assert schedule.due_at is not None and 0 <= schedule.due_at <= 10
    schedule.complete(10, empty=True, stopped=False)
    assert schedule.interval == 20 and schedule.due_at == 30
    schedule.complete(30, empty=True, stopped=False)
    assert schedule.interval == 35  # capped at maximum
    schedule.complete(65, empty=False, stopped=False)
    assert schedule.interval == 10
    schedule.complete(75, empty=True, stopped=True)
    assert schedule.interval == 5  # a stopped room probes at its fixed pace
    schedule.reset(76, stopped=False)
    assert schedule.due_at == 80 and schedule.delay(78) == 2


async def test_a_turn_scope_ends_every_owner_under_one_deadline() -> None:
    async def forever() -> None:
        await asyncio.sleep(10)

    handler = TurnTask(asyncio.create_task(forever()))
    worker = TurnTask(asyncio.create_task(forever()))
    scope = TurnScope(control_revision=1, handler=handler)
    scope.bind(worker)
    scope.terminate()
    deadline = scope.deadline
    scope.terminate()  # later calls keep the first deadline
    assert scope.deadline == deadline and scope.terminated.is_set() and scope.aborted
    assert await handler.drain() and await worker.drain()
    late = TurnTask(asyncio.create_task(forever()))
    scope.bind(late)  # bound to an ending scope: ended at once
    assert await late.drain()


async def test_tool_classes_record_each_successful_calls_effect() -> None:
    @records_turn_effects
    class Tools:
        def __init__(self) -> None:
            self.turn = Turn()

        async def send_message(self, content: str, mentions: Any = None) -> Any:
            return None if not content else {"id": "m1"}

        async def get_participants(self) -> list[Any]:
            return []

    tools = Tools()
    await tools.get_participants()
    assert not tools.turn.replied
    await tools.send_message("")  # a blank send posted nothing: no reply recorded
    assert not tools.turn.replied
    await tools.send_message("hi")
    assert tools.turn.replied


def test_capabilities_the_deployment_does_not_serve_are_pruned() -> None:
    features = AdapterFeatures(capabilities=[Capability.FILES, Capability.MEMORY])
    assert prune_unsupported(features, None) is features
    assert prune_unsupported(features, {}).capabilities == {Capability.MEMORY}
    kept = prune_unsupported(features, {"ff_file_transfer": True})
    assert kept.capabilities == {Capability.FILES, Capability.MEMORY}
    assert with_hub_room_contacts(frozenset(), is_hub_room=True) == {Capability.CONTACTS}
    assert participant_snapshot({"id": "u1", "name": "A", "email": "x"}) == {
        "id": "u1",
        "name": "A",
        "type": None,
        "handle": None,
        "description": None,
    }
    item = context_item_to_dict({"id": "m1", "name": "Bob", "inserted_at": "t"})
    assert (item["sender_name"], item["created_at"], item["metadata"]) == ("Bob", "t", {})
