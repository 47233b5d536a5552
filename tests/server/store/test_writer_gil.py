"""The writer's thread gets the GIL back promptly while the loop's thread is busy.

A ``COMMIT`` on the writer's thread releases the GIL for the fsync and must take it again to
return; a loop busy with other requests would keep it for CPython's whole switch interval
(5 ms), most of a batch's commit under load. The first commit hop lowers the interval to
``sqlite_inline.SWITCH_INTERVAL`` (docs/decisions.md, "The writer's thread and the GIL")."""

from __future__ import annotations

import asyncio
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from band_server.store.db import Database
from band_server.store.group_commit import InFlight
from band_server.store.sqlite_inline import SWITCH_INTERVAL, OffLoop


@pytest.fixture
def default_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(0.005)  # CPython's default
    yield
    sys.setswitchinterval(before)


async def test_a_commit_on_the_writers_thread_lowers_the_switch_interval(
    tmp_path: Path, default_interval: None
) -> None:
    in_flight = InFlight()
    in_flight.count = 2  # another request under way: the commit hops to the writer's thread
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'gil.db'}", in_flight=in_flight)
    try:
        threads: list[str] = []
        async with db.write() as session:
            await session.execute(text("CREATE TABLE t (n INTEGER)"))
        writer = db._writer
        assert writer is not None and writer._sqlite is not None

        def trace(statement: str) -> None:
            if statement.strip().upper() == "COMMIT":
                threads.append(threading.current_thread().name)

        writer._sqlite.set_trace_callback(trace)
        async with db.write() as session:
            await session.execute(text("INSERT INTO t (n) VALUES (1)"))
        assert threads == ["sqlite-commit"]
        assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
    finally:
        await db.dispose()


async def test_a_shorter_interval_already_set_is_kept(default_interval: None) -> None:
    sys.setswitchinterval(SWITCH_INTERVAL / 5)
    await OffLoop("test-writer").run(lambda: None)
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL / 5)


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


async def _late(offloop: OffLoop, interval: float) -> float:
    """How long after its 2 ms without the GIL (as the fsync) the writer's thread runs again,
    while the loop's thread spins (holds the GIL) for 30 ms without yielding."""
    sys.setswitchinterval(interval)

    def call() -> float:
        time.sleep(0.002)
        return time.perf_counter()  # the GIL taken again

    started = time.perf_counter()
    future = offloop.run(call)
    _spin(0.03)
    back: float = await future
    await asyncio.sleep(0.002)
    return back - (started + 0.002)


async def test_the_writers_thread_is_held_up_less_by_a_busy_loop(default_interval: None) -> None:
    offloop = OffLoop("test-writer")
    await offloop.run(lambda: None)
    default: list[float] = []
    lowered: list[float] = []
    for _ in range(9):  # alternated: the machine's other load falls on both
        default.append(await _late(offloop, 0.005))
        lowered.append(await _late(offloop, SWITCH_INTERVAL))
    assert statistics.median(lowered) < statistics.median(default), (lowered, default)
