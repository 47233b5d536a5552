"""The writer's turn (``store.turn.Turn``) against ``asyncio.Lock``, which it replaced: the
same order of holders, whoever is cancelled while waiting or just as the turn reaches them."""

from __future__ import annotations

import asyncio
import random
from contextlib import AbstractAsyncContextManager

import pytest

from band_server.store.turn import Turn


async def test_a_free_turn_is_taken_without_waiting() -> None:
    turn = Turn()
    assert turn.take() is None and turn.held
    waiter = turn.take()
    assert waiter is not None and not waiter.done()
    turn.release()  # handed to the waiter: still held
    assert waiter.done() and turn.held
    turn.release()
    assert not turn.held


async def _holders(
    lock: AbstractAsyncContextManager[object], seed: int, callers: int = 12
) -> list[int]:
    """Callers asking for ``lock`` in order, some cancelled while they wait and some just as
    it is theirs; the order in which the others held it."""
    rng = random.Random(seed)
    held: list[int] = []

    async def caller(n: int) -> None:
        async with lock:
            held.append(n)
            for _ in range(rng.randrange(3)):
                await asyncio.sleep(0)

    tasks = []
    for n in range(callers):
        tasks.append(asyncio.create_task(caller(n)))
        if rng.random() < 0.5:
            await asyncio.sleep(0)
    for _ in range(callers * 4):
        if rng.random() < 0.15:
            rng.choice(tasks).cancel()
        await asyncio.sleep(0)
    await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 10)  # none stuck
    return held


@pytest.mark.parametrize("seed", range(40))
async def test_holders_come_in_the_locks_order(seed: int) -> None:
    ours = await _holders(Turn(), seed)
    theirs = await _holders(asyncio.Lock(), seed)
    assert ours == theirs


async def test_a_caller_cancelled_as_the_turn_reaches_it_gives_it_on() -> None:
    turn = Turn()
    assert turn.take() is None
    waiter = turn.take()
    assert waiter is not None
    later = turn.take()
    assert later is not None
    task = asyncio.create_task(turn.wait(waiter))
    await asyncio.sleep(0)  # it waits
    turn.release()  # the turn is its own now...
    task.cancel()  # ...but it is cancelled before it runs again
    with pytest.raises(asyncio.CancelledError):
        await task
    assert later.done() and turn.held  # handed on to the next caller
