"""Background tasks the node's parts start: stopping one and waiting for it to end."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def cancelled(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` (when there is one) and return once it has ended; the cancellation it
    ends with is not raised here."""
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
