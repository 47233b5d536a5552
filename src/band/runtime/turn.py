"""Recording each tool call's effect on the turn that made it (for hand-built tool classes).

``@records_turn_effects`` wraps every agent-tool method a class defines (named as in the
registry: ``send_message``, ``add_participant``...) so a successful call records its
``TurnEffect`` on ``self.turn``, whichever path called it. A reply that returned None (a
blank send refused) records nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from band.core.turn import Turn
from band.runtime.tools.names import turn_effect
from band.runtime.tools.registry import TOOL_DEFINITIONS
from band.runtime.tools.types import Surface, TurnEffect

__all__ = ["record_tool_result", "records_turn_effects"]

ToolsClass = TypeVar("ToolsClass", bound=type)


def record_tool_result(turn: Turn, tool_name: str, result: Any) -> None:
    """Record a successful call of ``tool_name`` on ``turn``."""
    effect = turn_effect(tool_name)
    if effect is TurnEffect.REPLY and result is None:
        return
    turn.record(effect)


def _recording(
    tool_name: str, method: Callable[..., Awaitable[Any]]
) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def record_on_success(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = await method(self, *args, **kwargs)
        record_tool_result(self.turn, tool_name, result)
        return result

    return record_on_success


def records_turn_effects(cls: ToolsClass) -> ToolsClass:
    """Wrap the class's own agent-tool methods so each records its effect."""
    for definition in TOOL_DEFINITIONS.values():
        method = cls.__dict__.get(definition.method_name)
        if definition.surface == Surface.AGENT and method is not None:
            setattr(cls, definition.method_name, _recording(definition.name, method))
    return cls
