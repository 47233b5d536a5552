"""Bringing an adapter up and down for a host, the same way from every entry point.

``accept_adapter`` seals its cleanup registrations and binds an adapter that owns resources
to its host; ``start_adapter`` prunes the capabilities the deployment does not serve and
calls ``on_started``; ``dispose_adapter`` runs the framework's teardown once, then (when the
host's work has settled) the registered cleanups, last first. A plain ``FrameworkAdapter``
only gets ``on_started`` and ``cleanup_all``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from band.core.simple_adapter import SimpleAdapter

__all__ = [
    "accept_adapter",
    "arm_adapter",
    "dispose_adapter",
    "dispose_framework",
    "refuse_recursive_shutdown",
    "release_adapter",
    "start_adapter",
]

logger = logging.getLogger(__name__)


def accept_adapter(adapter: Any, owner: object, *, exclusive: bool = False) -> bool:
    """Seal registrations and bind the adapter to ``owner``; whether it is now exclusive."""
    if not isinstance(adapter, SimpleAdapter):
        return False
    state = adapter._cleanups
    exclusive = exclusive or state.has_callbacks
    state.check_owner(owner, exclusive=exclusive)
    state.accept(owner, exclusive=exclusive)
    return exclusive


def arm_adapter(adapter: Any) -> None:
    """The framework's teardown becomes due (just before a start is attempted)."""
    if isinstance(adapter, SimpleAdapter):
        adapter._cleanups.arm_framework()


def refuse_recursive_shutdown(adapter: Any) -> None:
    """A cleanup callback may not shut its own host down."""
    if isinstance(adapter, SimpleAdapter):
        adapter._cleanups.refuse_recursive_shutdown()


async def start_adapter(
    adapter: Any,
    *,
    agent_name: str,
    agent_description: str,
    feature_flags: Mapping[str, Any] | None,
) -> None:
    """Start ``adapter`` for an agent whose deployment serves ``feature_flags``."""
    arm_adapter(adapter)
    if isinstance(adapter, SimpleAdapter):
        await adapter.startup(agent_name, agent_description, feature_flags=feature_flags)
    else:
        await adapter.on_started(agent_name, agent_description)


async def dispose_framework(adapter: Any) -> None:
    """The framework's own teardown (``cleanup_all``), once."""
    if isinstance(adapter, SimpleAdapter):
        await adapter._cleanups.finish_framework(adapter.cleanup_all)
        return
    cleanup_all = getattr(adapter, "cleanup_all", None)
    if cleanup_all is not None:
        await cleanup_all()


async def dispose_adapter(adapter: Any, *, work_settled: bool = True) -> bool:
    """Framework teardown, then the registered cleanups once the host's work has settled.

    False when the cleanups wait for that work; failures raise (they stay pending).
    """
    if not isinstance(adapter, SimpleAdapter):
        await dispose_framework(adapter)
        return True
    state = adapter._cleanups
    state.refuse_recursive_shutdown()
    state.task = asyncio.current_task()
    try:
        await dispose_framework(adapter)
        if not work_settled:
            logger.debug("Adapter cleanups wait for the host's work to settle")
            return False
        await state.run()
        return True
    finally:
        state.task = None


async def release_adapter(adapter: Any, *, work_settled: bool = True) -> bool:
    """``dispose_adapter`` on an error path: a failure is logged, never raised."""
    try:
        return await dispose_adapter(adapter, work_settled=work_settled)
    except Exception:
        logger.exception("Adapter disposal failed")
        return False
