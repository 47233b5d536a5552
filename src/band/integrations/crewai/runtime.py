"""Running a coroutine from CrewAI's synchronous tool calls.

CrewAI calls a tool's ``_run`` synchronously, from a worker thread of ``kickoff_async``
(its executor's steps run through ``asyncio.to_thread``). The Band tools are coroutines
bound to the agent's event loop, so the call is handed to that loop and the worker waits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_async"]

T = TypeVar("T")


def run_async(
    coro: Coroutine[Any, Any, T], fallback_loop: asyncio.AbstractEventLoop | None = None
) -> T:
    """Run ``coro`` on ``fallback_loop`` (the agent's) and wait for its result in this thread.

    Without a running ``fallback_loop`` the coroutine runs on a fresh loop here. Called on
    the loop's own thread it would wait for itself: that is refused with a clear error.
    """
    loop = fallback_loop
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if loop is not None and loop.is_running():
        if running is loop:
            coro.close()
            raise RuntimeError(
                "a CrewAI tool ran on the agent's event loop thread; Band tools must be "
                "called from CrewAI's worker threads (kickoff_async)"
            )
        return asyncio.run_coroutine_threadsafe(coro, loop).result()
    if running is not None:
        coro.close()
        raise RuntimeError("no agent event loop to run the Band tool on")
    return asyncio.run(coro)
