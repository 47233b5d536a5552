"""Helpers every framework integration shares.

Rebuilding history for a model, an integration pairs each tool result with its call: by the
framework's unique id first, else the latest pending call of the same name; a result with
no call stays alone (never a made-up call). Text the agent sent through ``band_send_message``
is already in its tool calls, so assistant text is left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band.runtime.formatters import build_participants_message

if TYPE_CHECKING:
    from band.runtime.room_execution import ExecutionContext

__all__ = ["check_and_format_participants"]


def check_and_format_participants(ctx: ExecutionContext, *, mark_sent: bool = True) -> str | None:
    """The roster text when the room's participants changed since last sent, else None.

    With ``mark_sent`` the roster counts as sent to the model from now on.
    """
    if not ctx.participants_changed():
        return None
    snapshot = ctx.participants
    text = build_participants_message(snapshot, agent_id=ctx.agent_id)
    if mark_sent:
        ctx.mark_participants_sent(snapshot)
    return text
