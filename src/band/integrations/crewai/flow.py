"""Running one CrewAI ``Flow`` execution to its end, branches included.

A flow's listeners may run as tasks of their own; ``kickoff_async`` can return (or fail)
while a sibling branch still runs. :func:`kickoff_flow` keeps every task that ran a flow
step during the kickoff (CrewAI's step hooks, scoped to this call) and waits for them
before returning, so a turn never ends with a branch of its flow still posting.
"""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["kickoff_flow"]


async def kickoff_flow(flow: Any, inputs: dict[str, Any]) -> Any:
    """``flow.kickoff_async(inputs)``, then wait for the flow's other branches."""
    try:
        from crewai.flow.flow import Flow
        from crewai.hooks.dispatch import (
            InterceptionPoint,
            get_scoped_hooks,
            register_scoped,
            scoped_hooks,
        )
    except ImportError:  # no CrewAI (or no step hooks): a flow-like object, run as it is
        return await flow.kickoff_async(inputs)
    if not isinstance(flow, Flow):
        return await flow.kickoff_async(inputs)

    caller = asyncio.current_task()
    branches: set[asyncio.Task[Any]] = set()

    def settled(task: asyncio.Task[Any]) -> None:
        branches.discard(task)
        if not task.cancelled():
            task.exception()  # the branch's failure is the kickoff's to report

    def on_step(context: Any) -> None:
        try:
            task = asyncio.current_task()
        except RuntimeError:  # a step run in a worker thread: not a branch task of ours
            return
        if getattr(context, "flow", None) is None or task is None or task is caller:
            return
        if task not in branches:
            branches.add(task)
            task.add_done_callback(settled)

    with scoped_hooks({point: get_scoped_hooks(point) for point in InterceptionPoint}):
        register_scoped(InterceptionPoint.PRE_STEP, on_step)
        try:
            return await flow.kickoff_async(inputs)
        finally:
            while branches:
                await asyncio.wait(set(branches))
