"""``agent.control`` (interrupt / stop / play): which rooms a signal reaches, and what it does.

Shared by ``AgentRuntime`` and the ``Agent``'s runtime, so a control means the same thing for
both. Interrupt cancels the room's running turn and consumes its message; stop cancels it,
leaves the message open and pauses the room; play resumes the room and drains ``/next``.
Interrupt and stop also reach ``on_control(room_id, mode)`` (the adapter's ``on_interrupt``):
an adapter may keep work running after its turn returned (a turn parked on an approval),
which only it can end. Executions without one of these methods skip it.
"""

from __future__ import annotations

import inspect
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from band.client.streaming.client import ControlMode

__all__ = [
    "ControlCallback",
    "ControlDeduplicator",
    "ControlMode",
    "apply_control",
    "control_targets",
    "targets",
]

log = logging.getLogger("band.runtime.control")

ControlCallback = Callable[[str, str], Awaitable[None]]
SEEN_LIMIT = 256


class ControlDeduplicator:
    """The platform may repeat a signal: apply each ``correlation_id`` once (bounded memory)."""

    def __init__(self) -> None:
        self._seen: OrderedDict[str, None] = OrderedDict()

    def first_sighting(self, payload: Mapping[str, Any]) -> bool:
        correlation = payload.get("correlation_id")
        if not correlation:
            return True
        key = str(correlation)
        if key in self._seen:
            return False
        self._seen[key] = None
        if len(self._seen) > SEEN_LIMIT:
            self._seen.popitem(last=False)
        return True


def targets(payload: Mapping[str, Any], executions: Mapping[str, Any]) -> list[Any]:
    """A room-addressed signal reaches that room; an agent-scoped one reaches every room."""
    room_id = payload.get("room_id")
    if room_id is None:
        return list(executions.values()) if payload.get("scope") == "agent" else []
    execution = executions.get(str(room_id))
    return [execution] if execution is not None else []


def control_targets(payload: Any, executions: Mapping[str, Any]) -> list[Any]:
    """``targets`` for a typed ``AgentControlPayload`` (or its dict)."""
    fields = payload if isinstance(payload, Mapping) else payload.model_dump()
    return targets(fields, executions)


async def apply_control(execution: Any, mode: str, on_control: ControlCallback | None) -> None:
    """Apply one mode to one room's execution (see the module docstring)."""
    room_id = getattr(execution, "room_id", None)
    if mode == ControlMode.PLAY:
        await _call(execution, "resume_room")
        return
    if mode == ControlMode.INTERRUPT:
        await _call(execution, "interrupt")
    elif mode == ControlMode.STOP:
        already = bool(getattr(execution, "adapter_stop_notified", False))
        await _call(execution, "stop_room")
        if already:
            return
    else:
        log.warning("Unknown control mode %r; ignored", mode)
        return
    if on_control is not None and room_id is not None:
        try:
            await on_control(str(room_id), str(mode))
        except Exception:
            log.exception("Room %s: on_control(%s) failed", room_id, mode)


async def _call(execution: Any, name: str) -> None:
    method = getattr(execution, name, None)
    if method is None:
        log.debug("Execution %s has no %s(); skipped", getattr(execution, "room_id", "?"), name)
        return
    result = method()
    if inspect.isawaitable(result):
        await result
