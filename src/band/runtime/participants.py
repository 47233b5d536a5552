"""The roster's fields, and logging a roster update that failed without losing the roster."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from band.logging_config import core_issues, trace_context_extra
from band.runtime.tools.roster import ROSTER_KEYS

__all__ = ["log_roster_call", "log_roster_error", "participant_snapshot"]


def participant_snapshot(participant: Mapping[str, Any]) -> dict[str, Any]:
    """A participant reduced to the roster's fields (id, name, type, handle, description)."""
    return {name: participant.get(name) for name in ROSTER_KEYS}


def log_roster_error(logger_: logging.Logger, *, room_id: str, action: str, err: Exception) -> None:
    """Log a refused roster update with its structured issues; the roster stays as it was."""
    logger_.warning(
        "Failed to %s for room %s: %s",
        action,
        room_id,
        err,
        extra={"issues": core_issues(err), **trace_context_extra(err)},
    )


def log_roster_call(
    logger_: logging.Logger, *, call: Callable[[Any], Any], arg: Any, room_id: str
) -> None:
    """``call(arg)``; a ValueError or TypeError is logged (named by ``call``), not raised."""
    try:
        call(arg)
    except (ValueError, TypeError) as err:
        log_roster_error(logger_, room_id=room_id, action=call.__qualname__, err=err)
