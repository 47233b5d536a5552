"""``Capability`` and ``Emit``: enums whose members combine with ``|`` into a frozenset."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

__all__ = ["ALL_CAPABILITIES", "Capability", "Emit"]


class _FlagEnum(StrEnum):
    """A StrEnum whose members combine with ``|`` into a frozenset (same enum only)."""

    def _combine(self, other: object) -> Any:
        if isinstance(other, _FlagEnum):
            if type(other) is not type(self):
                raise TypeError(f"cannot combine {type(self).__name__} with {type(other).__name__}")
            return frozenset({self, other})
        if isinstance(other, frozenset | set):
            for item in other:
                if isinstance(item, _FlagEnum) and type(item) is not type(self):
                    raise TypeError(
                        f"cannot combine {type(self).__name__} with {type(item).__name__}"
                    )
            return frozenset({self, *other})
        return NotImplemented

    def __or__(self, other: object) -> Any:
        return self._combine(other)

    def __ror__(self, other: object) -> Any:
        return self._combine(other)


class Capability(_FlagEnum):
    """Optional tool groups an adapter may pass to its model."""

    MEMORY = "memory"
    CONTACTS = "contacts"
    FILES = "files"
    TASKS = "tasks"


class Emit(_FlagEnum):
    """Event kinds an adapter may report to the room."""

    TOOL_CALLS = "tool_calls"
    THOUGHTS = "thoughts"
    TASK_EVENTS = "task_events"
    USAGE = "usage"


ALL_CAPABILITIES: frozenset[Capability] = frozenset(Capability)
