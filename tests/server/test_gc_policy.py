"""The node's collector policy: survivors of a full collection are frozen, and unfrozen again."""

from __future__ import annotations

import asyncio
import gc

from band_server.gc_policy import FrozenSurvivors, collect_everything


class Cycle:
    def __init__(self) -> None:
        self.me = self


async def test_survivors_are_frozen_and_uninstall_unfreezes() -> None:
    policy = FrozenSurvivors()
    policy.install()
    try:
        kept = [object() for _ in range(10)]
        gc.collect()
        assert policy.full_collections >= 1
        assert gc.get_freeze_count() > 0
        assert kept
    finally:
        policy.uninstall()
    assert gc.get_freeze_count() == 0


async def test_cyclic_garbage_among_frozen_objects_goes_at_the_periodic_full_collection() -> None:
    policy = FrozenSurvivors()
    policy.install()
    try:
        cycles = [Cycle() for _ in range(2000)]
        gc.collect()  # the cycles survive and are frozen
        frozen = gc.get_freeze_count()
        del cycles
        gc.collect()  # frozen: not collected (each cycle keeps itself alive)
        assert gc.get_freeze_count() >= frozen - 1000
        collect_everything()
        assert gc.get_freeze_count() < frozen - 1500
    finally:
        policy.uninstall()


async def test_the_periodic_collection_runs_on_the_loop() -> None:
    policy = FrozenSurvivors(full_every=0.01)
    policy.install()
    try:
        before = policy.full_collections
        for _ in range(500):
            if policy.full_collections > before + 1:
                break
            await asyncio.sleep(0.01)
        assert policy.full_collections > before + 1
    finally:
        policy.uninstall()


async def test_installs_nest() -> None:
    first, second = FrozenSurvivors(), FrozenSurvivors()
    first.install()
    second.install()
    first.uninstall()
    gc.collect()
    assert gc.get_freeze_count() > 0
    second.uninstall()
    assert gc.get_freeze_count() == 0
