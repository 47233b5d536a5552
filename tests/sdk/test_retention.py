"""Room retention (band.core.retention): a room's handle is acquired on use, released when idle
(opt-in, only while the provider is quiescent), recovered after a failure, disposed at the end."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

from band.core.exceptions import RoomClosingError
from band.core.retention import (
    BUSY_ACTIVITY_REASON,
    ProviderActivity,
    ReleaseCause,
    ReleaseOutcome,
    Residency,
    RoomRetention,
    RoomRetentionConfig,
    require_disabled_retention,
)


class FakeClock:
    """A clock the test moves by hand; ``call_at`` callbacks run when it passes them."""

    def __init__(self) -> None:
        self.t = 100.0
        self.timers: list[tuple[float, Callable[[], None], list[bool]]] = []

    def now(self) -> float:
        return self.t

    def call_at(self, when: float, callback: Callable[[], None]) -> _Handle:
        cancelled: list[bool] = []
        self.timers.append((when, callback, cancelled))
        return _Handle(cancelled)

    def advance(self, seconds: float) -> None:
        self.t += seconds
        for when, callback, cancelled in list(self.timers):
            if when <= self.t and not cancelled:
                cancelled.append(True)
                callback()


@dataclass
class _Handle:
    cancelled: list[bool]

    def cancel(self) -> None:
        self.cancelled.append(True)


@dataclass
class Provider:
    """Records what the room asked of the provider; scripted failures and answers."""

    calls: list[tuple[str, object]] = field(default_factory=list)
    fail_acquire: int = 0
    idle_answer: ReleaseOutcome = ReleaseOutcome.RELEASED

    async def acquire(self, generation: int, resume: bool) -> None:
        self.calls.append(("acquire", (generation, resume)))
        if self.fail_acquire:
            self.fail_acquire -= 1
            raise OSError("process would not start")

    async def release(self, cause: ReleaseCause) -> ReleaseOutcome:
        self.calls.append(("release", cause))
        return self.idle_answer if cause == ReleaseCause.IDLE else ReleaseOutcome.RELEASED

    async def dispose(self) -> None:
        self.calls.append(("dispose", None))


def _room(owner: RoomRetention, provider: Provider, room_id: str = "r1"):  # type: ignore[no-untyped-def]
    return owner.register(
        room_id, acquire=provider.acquire, release=provider.release, dispose=provider.dispose
    )


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_first_use_acquires_a_resident_handle_that_later_uses_reuse() -> None:
    provider = Provider()
    room = _room(RoomRetention(RoomRetentionConfig()), provider)
    assert room.snapshot.state == Residency.SUSPENDED
    async with room.use():
        assert room.snapshot.state == Residency.RESIDENT
        assert room.snapshot.leases == 1
    async with room.use():
        pass
    assert provider.calls == [("acquire", (1, False))]
    assert room.generation == 1


async def test_an_idle_quiescent_room_is_released_and_resumed_on_the_next_use() -> None:
    clock, provider = FakeClock(), Provider()
    owner = RoomRetention(RoomRetentionConfig(idle_timeout_s=30), clock=clock)
    room = _room(owner, provider)
    async with room.use():
        pass
    assert room.snapshot.deadline is None  # activity unknown: never idle-released
    assert room.observe(ProviderActivity.QUIESCENT, generation=1)
    assert room.snapshot.deadline == clock.t + 30
    clock.advance(29)
    await _settle()
    assert room.snapshot.state == Residency.RESIDENT
    clock.advance(1)
    await _settle()
    assert room.snapshot.state == Residency.SUSPENDED
    async with room.use():
        pass
    assert provider.calls == [
        ("acquire", (1, False)),
        ("release", ReleaseCause.IDLE),
        ("acquire", (2, True)),  # a new generation, restoring the same native identity
    ]


async def test_a_provider_that_answers_busy_keeps_its_handle() -> None:
    clock, provider = FakeClock(), Provider(idle_answer=ReleaseOutcome.BUSY)
    room = _room(RoomRetention(RoomRetentionConfig(idle_timeout_s=5), clock=clock), provider)
    async with room.use():
        pass
    room.observe(ProviderActivity.QUIESCENT, generation=1)
    clock.advance(5)
    await _settle()
    snapshot = room.snapshot
    assert snapshot.state == Residency.RESIDENT
    assert snapshot.provider_activity == ProviderActivity.ACTIVE
    assert snapshot.reason == BUSY_ACTIVITY_REASON
    assert snapshot.deadline is None


async def test_a_failed_start_is_released_for_recovery_before_a_fresh_generation() -> None:
    provider = Provider(fail_acquire=1)
    room = _room(RoomRetention(RoomRetentionConfig()), provider)
    with pytest.raises(OSError, match="would not start"):
        async with room.use():
            pass
    snapshot = room.snapshot
    assert snapshot.state in (Residency.CLEANUP_PENDING, Residency.SUSPENDING)
    assert snapshot.error == "OSError: process would not start"
    async with room.use():
        assert room.snapshot.state == Residency.RESIDENT
    assert provider.calls == [
        ("acquire", (1, False)),
        ("release", ReleaseCause.RECOVERY),
        ("acquire", (2, False)),
    ]


async def test_recover_retires_the_residency_and_stale_observations_lose_authority() -> None:
    provider = Provider()
    room = _room(RoomRetention(RoomRetentionConfig()), provider)
    async with room.use():
        pass
    assert room.recover(generation=1, reason="process crashed")
    assert not room.observe(ProviderActivity.QUIESCENT, generation=1)
    await room.wait_released(generation=1)
    assert room.snapshot.state == Residency.SUSPENDED
    assert ("release", ReleaseCause.RECOVERY) in provider.calls
    assert not room.recover(generation=1, reason="again")


async def test_dispose_releases_final_then_disposes_and_closes_admission() -> None:
    provider = Provider()
    owner = RoomRetention(RoomRetentionConfig())
    room = _room(owner, provider)
    async with room.use():
        pass
    await room.dispose()
    assert room.snapshot.state == Residency.CLOSED
    assert provider.calls[-2:] == [("release", ReleaseCause.FINAL), ("dispose", None)]
    with pytest.raises(RoomClosingError):
        async with room.use():
            pass


async def test_stop_disposes_every_room_and_a_renewed_owner_serves_again() -> None:
    provider = Provider()
    owner = RoomRetention(RoomRetentionConfig(), settle_grace_s=0.01)
    first, second = _room(owner, provider, "a"), _room(owner, provider, "b")
    async with first.use():
        pass
    detached = first.start_owned(lambda: asyncio.sleep(10))
    await owner.stop()
    assert detached.cancelled()
    assert first.snapshot.state == second.snapshot.state == Residency.CLOSED
    with pytest.raises(RoomClosingError):
        _room(owner, provider, "c")
    fresh = owner.renewed()
    assert fresh is not owner and not fresh.stopping
    assert owner.renewed() is not owner


def test_adapters_that_cannot_suspend_refuse_an_idle_timeout() -> None:
    assert require_disabled_retention(RoomRetentionConfig(), reason="No.").idle_timeout_s is None
    with pytest.raises(ValueError, match=r"No suspension here\. Leave retention\.idle_timeout_s"):
        require_disabled_retention(
            RoomRetentionConfig(idle_timeout_s=1), reason="No suspension here."
        )
