"""Which room's tools a Parlant tool call acts on.

Parlant runs tools in its own tasks (through its tool service), so a ContextVar set by the
turn never reaches them. Each turn binds its room's ``AgentTools`` to the Parlant session id
instead, and a tool resolves them from ``context.session_id``.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "NO_SESSION_TOOLS_ERROR",
    "NoSessionTools",
    "bound_session_tools",
    "get_current_tools",
    "get_session_tools",
    "require_session_tools",
    "set_current_tools",
    "set_session_tools",
]

logger = logging.getLogger(__name__)

NO_SESSION_TOOLS_ERROR = "Error: No tools available in current context"

_BOUND: dict[str, Any] = {}


class NoSessionTools(Exception):
    """A tool ran while its Parlant session had no room bound to it."""


def set_session_tools(session_id: str, tools: Any | None) -> None:
    """Bind ``session_id`` to a room's tools (None unbinds it)."""
    if tools is None:
        _BOUND.pop(session_id, None)
    else:
        _BOUND[session_id] = tools


def get_session_tools(session_id: str) -> Any | None:
    """The tools bound to ``session_id``, or None."""
    return _BOUND.get(session_id)


def require_session_tools(context: Any) -> Any:
    """The tools of ``context.session_id``; ``NoSessionTools`` when none are bound."""
    tools = get_session_tools(str(context.session_id))
    if tools is None:
        raise NoSessionTools(str(context.session_id))
    return tools


@contextmanager
def bound_session_tools(*, session_id: str, tools: Any) -> Iterator[None]:
    """Route ``session_id``'s tool calls to ``tools`` for one turn."""
    set_session_tools(session_id, tools)
    try:
        yield
    finally:
        if _BOUND.get(session_id) is tools:
            del _BOUND[session_id]


def set_current_tools(tools: Any | None) -> None:
    """Deprecated and without effect: tools are bound per session (``set_session_tools``)."""
    warnings.warn(
        "set_current_tools is deprecated and does nothing; use set_session_tools",
        DeprecationWarning,
        stacklevel=2,
    )


def get_current_tools() -> Any | None:
    """Deprecated: tools are bound per session (``get_session_tools``); always None."""
    warnings.warn(
        "get_current_tools is deprecated; use get_session_tools",
        DeprecationWarning,
        stacklevel=2,
    )
    return None
