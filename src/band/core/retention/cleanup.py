"""Owned cleanup tasks: they outlive a cancelled caller, and their failure is never lost.

A failure is re-raised by the caller waiting on the task (``report_owned``) or, when nobody
waits, logged once.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any

from band.core.exceptions import CleanupIncompleteError
from band.core.retention.config import RoomRetentionConfig

__all__ = [
    "await_owned",
    "cleanup_deadline",
    "finish_by",
    "rejoin_owned",
    "report_owned",
    "reporting",
    "spawn_owned",
    "task_failure",
]

logger = logging.getLogger(__name__)
_waiting: Counter[asyncio.Task[Any]] = Counter()  # callers that will re-raise the failure
_handled: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()
_labels: weakref.WeakKeyDictionary[asyncio.Task[Any], str] = weakref.WeakKeyDictionary()


def spawn_owned(operation: Coroutine[object, object, None], *, label: str) -> asyncio.Task[None]:
    """Run ``operation`` as a task of its own; its failure is logged if no caller reports it."""
    task = asyncio.create_task(operation)
    _labels[task] = label
    task.add_done_callback(_log_unreported)
    return task


def rejoin_owned(
    current: asyncio.Task[None] | None,
    operation: Callable[[], Coroutine[object, object, None]],
    *,
    label: str,
) -> asyncio.Task[None]:
    """The running or settled attempt; a new one only after the last one failed."""
    if current is None or (current.done() and task_failure(current) is not None):
        return spawn_owned(operation(), label=label)
    return current


def _log_unreported(task: asyncio.Task[Any]) -> None:
    if task in _waiting or task in _handled or task.cancelled():
        return
    label = _labels.get(task)
    if label is None:
        return
    _handled.add(task)
    error = task.exception()
    if error is not None:
        logger.warning("%s failed: %s", label, error, exc_info=error)


def task_failure(task: asyncio.Task[Any]) -> BaseException | None:
    """A finished task's failure; a cancelled cleanup counts as incomplete."""
    if task.cancelled():
        return CleanupIncompleteError("Cleanup was cancelled")
    return task.exception()


@contextmanager
def reporting(tasks: Collection[asyncio.Task[Any]]) -> Iterator[None]:
    """While inside, the caller reports ``tasks``' failures (a cancelled caller does not)."""
    _waiting.update(tasks)
    cancelled = False
    try:
        yield
    except asyncio.CancelledError:
        cancelled = True
        raise
    finally:
        _waiting.subtract(tasks)
        for task in tasks:
            if _waiting[task] <= 0:
                del _waiting[task]
            if task.done():
                if cancelled:
                    _log_unreported(task)
                else:
                    _handled.add(task)


async def await_owned(
    tasks: Collection[asyncio.Task[Any]],
    timeout: float | None,  # noqa: ASYNC109 - band-sdk's signature
) -> bool:
    """Wait up to ``timeout`` without cancelling ``tasks``; whether all finished."""
    with reporting(tasks):
        done, _ = await asyncio.wait(tasks, timeout=timeout)
    return len(done) == len(tasks)


async def report_owned(
    task: asyncio.Task[Any],
    timeout: float | None,  # noqa: ASYNC109 - band-sdk's signature
) -> None:
    """Raise ``task``'s failure, or CleanupIncompleteError when it outlasts ``timeout``."""
    if not await await_owned({task}, timeout):
        raise CleanupIncompleteError(f"Cleanup still running after {timeout}s")
    error = task_failure(task)
    if error is not None:
        raise error


def cleanup_deadline(config: RoomRetentionConfig) -> float:
    """The loop time by which an adapter's whole cleanup (rooms and all) should be done."""
    return asyncio.get_running_loop().time() + config.transition_timeout_s


async def finish_by(deadline: float, cleanup: Awaitable[None], *, what: str) -> None:
    """Await ``cleanup`` until ``deadline``; past it, CleanupIncompleteError (it keeps running)."""
    budget = asyncio.timeout_at(deadline)
    try:
        async with budget:
            await cleanup
    except TimeoutError as error:
        if not budget.expired():
            raise
        raise CleanupIncompleteError(f"{what} still running after its transition budget") from error
