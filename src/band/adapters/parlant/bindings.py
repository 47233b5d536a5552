"""Which room's tools a Parlant tool call acts on.

Parlant runs tools in its own tasks (through its tool service), so a ContextVar set by
the turn cannot reach them. Each turn binds its room's tools to the Parlant session id
instead; a tool looks the binding up from ``context.session_id``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from band.core.protocols import AgentToolsProtocol

__all__ = ["bind_session_tools", "tools_for_session"]

_BOUND: dict[str, AgentToolsProtocol] = {}


@contextmanager
def bind_session_tools(session_id: str, tools: AgentToolsProtocol) -> Iterator[None]:
    """Route tool calls of ``session_id`` to ``tools`` for the duration of one turn."""
    _BOUND[session_id] = tools
    try:
        yield
    finally:
        if _BOUND.get(session_id) is tools:
            del _BOUND[session_id]


def tools_for_session(session_id: str) -> AgentToolsProtocol | None:
    return _BOUND.get(session_id)
