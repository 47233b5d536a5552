"""Answering an ACP agent's permission requests, and reading its elicitation requests.

An agent asking ``session/request_permission`` offers options, each with an ``optionId`` and
a ``kind`` (``allow_once``, ``allow_always``, ``reject_once``, ``reject_always``). The answer
must select one of the offered ids (a grant is never made up) or cancel. Options may arrive
as ``acp.schema`` models or as wire dicts (camelCase or snake_case); both are read here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

__all__ = [
    "ALLOW_ALWAYS_KIND",
    "ALLOW_ONCE_KIND",
    "ElicitationHandler",
    "ElicitationNarrator",
    "PermissionHandler",
    "PermissionNarrator",
    "allow_permission",
    "cancel_permission",
    "elicitation_requested_schema",
    "elicitation_session_id",
    "option_id_of_kind",
    "permission_option_ids",
    "select_allow_option_id",
]

PermissionHandler = Callable[..., Awaitable[dict[str, object]]]
PermissionNarrator = Callable[[Awaitable[None]], Awaitable[None]]
ElicitationHandler = Callable[..., Awaitable[object]]
ElicitationNarrator = Callable[[Awaitable[None]], Awaitable[None]]

ALLOW_ONCE_KIND = "allow_once"
ALLOW_ALWAYS_KIND = "allow_always"


def _field(option: object, *names: str) -> Any:
    """The first of ``names`` the option has (a key of a dict, else an attribute)."""
    for name in names:
        value = option.get(name) if isinstance(option, Mapping) else getattr(option, name, None)
        if value is not None:
            return value
    return None


def _option_id(option: object) -> str | None:
    value = _field(option, "optionId", "option_id")
    return None if value is None else str(value)


def permission_option_ids(options: object) -> tuple[str, ...]:
    """The offered option ids, in the order offered (``()`` when options is no list)."""
    if not isinstance(options, list | tuple):
        return ()
    return tuple(i for i in map(_option_id, options) if i is not None)


def option_id_of_kind(options: object, kind: str) -> str | None:
    """The id of the first offered option of ``kind``, or None."""
    if not isinstance(options, list | tuple):
        return None
    for option in options:
        if _field(option, "kind") == kind and (found := _option_id(option)) is not None:
            return found
    return None


def select_allow_option_id(options: object) -> str | None:
    """An offered allow option's id (``allow_once`` before ``allow_always``), or None."""
    once = option_id_of_kind(options, ALLOW_ONCE_KIND)
    return once if once is not None else option_id_of_kind(options, ALLOW_ALWAYS_KIND)


def allow_permission(option_id: str) -> dict[str, object]:
    """The wire ``RequestPermissionResponse`` selecting ``option_id``."""
    return {"outcome": {"outcome": "selected", "optionId": option_id}}


def cancel_permission() -> dict[str, object]:
    """The wire ``RequestPermissionResponse`` cancelling the request."""
    return {"outcome": {"outcome": "cancelled"}}


def elicitation_session_id(mode: object, kwargs: dict[str, object]) -> str:
    """The session an elicitation is for: the mode's ``session_id``, else the keyword's."""
    found = getattr(mode, "session_id", None) or kwargs.get("session_id") or kwargs.get("sessionId")
    return str(found or "")


def elicitation_requested_schema(mode: object, kwargs: dict[str, object]) -> object | None:
    """The form schema an elicitation asks to be filled (mode first, then the keywords)."""
    found = getattr(mode, "requested_schema", None)
    return found or kwargs.get("requested_schema") or kwargs.get("requestedSchema")
