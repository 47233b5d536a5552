"""What every Band tool call made by Parlant goes through: logging and failures as text.

Parlant shows the model only a generic error for an exception a tool raises; a failure the
model can act on (a bad argument, an unknown handle) must come back as the tool's result.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

from band.core.exceptions import BandToolError, InvalidToolArgumentsError

from ._parlant import ToolResult
from .mentions import with_mention_handles
from .sessiontools import NO_SESSION_TOOLS_ERROR, NoSessionTools, get_session_tools

__all__ = ["guard_failures"]

logger = logging.getLogger(__name__)
CONTEXT_PARAMETER = "context"
LOGGED_CHARS = 50  # an argument or result longer than this is cut in debug lines


def guard_failures(
    func: Callable[..., Any], *, failure: str, mention_hints: bool
) -> Callable[..., Any]:
    """``func`` wrapped so that it never raises into Parlant.

    A failure comes back as ``"Error {failure}: {reason}"`` (``failure`` may name the call's
    arguments, e.g. ``"adding participant '{identifier}'"``); with ``mention_hints`` a refused
    mention also lists the room's handles. ``None`` for an optional argument (how Parlant's
    engine omits it) falls back to the parameter's default.
    """
    signature = inspect.signature(func)
    defaulted = {
        name for name, param in signature.parameters.items() if param.default is not param.empty
    }

    @functools.wraps(func)
    async def guarded(context: Any, *args: Any, **kwargs: Any) -> Any:
        kwargs = {k: v for k, v in kwargs.items() if v is not None or k not in defaulted}
        name = func.__name__
        try:
            call = signature.bind(context, *args, **kwargs)
        except TypeError as exc:
            logger.warning("[Parlant Tool] %s: malformed call: %s", name, exc)
            return ToolResult(data=f"Error calling {name}: {exc}")
        call.apply_defaults()
        shown = {k: str(v)[:LOGGED_CHARS] for k, v in call.arguments.items() if k != "context"}
        logger.debug("[Parlant Tool] %s %s (session %s)", name, shown, context.session_id)
        try:
            return await func(context, *args, **kwargs)
        except NoSessionTools:
            logger.error("[Parlant Tool] %s: no room bound to session %s", name, context.session_id)
            return ToolResult(data=NO_SESSION_TOOLS_ERROR)
        except Exception as exc:  # the engine would hide it; the model gets the text instead
            expected = isinstance(exc, (InvalidToolArgumentsError, BandToolError, ValueError))
            logger.log(
                logging.WARNING if expected else logging.ERROR,
                "[Parlant Tool] %s failed: %s",
                name,
                exc,
                exc_info=not expected,
            )
            reason = str(exc)
            if mention_hints and isinstance(exc, (ValueError, BandToolError)):
                tools = get_session_tools(str(context.session_id))
                if tools is not None:
                    reason = with_mention_handles(reason, tools)
            return ToolResult(data=f"Error {failure.format(**call.arguments)}: {reason}")

    return guarded
