"""Replaying a room's earlier exchanges into a new Parlant session.

Only complete exchanges are replayed: a customer line is kept when an agent's answer follows
it (an unanswered last line is the live turn's to answer; replaying it would ask twice).
Replayed events carry ``{"historical": true}`` and never start the engine.
"""

from __future__ import annotations

import logging
from typing import Any

from band.converters.parlant import ParlantMessage, ParlantMessages, ParlantRole

from .messages import name_this_agent

__all__ = ["HISTORICAL", "complete_exchanges", "inject_history", "name_this_agent_in_history"]

logger = logging.getLogger(__name__)

HISTORICAL = {"historical": True}


def _role(message: ParlantMessage) -> str:
    return message.get("role", ParlantRole.USER)  # no role: the customer's


def complete_exchanges(history: ParlantMessages) -> ParlantMessages:
    """``history`` without empty lines and without customer lines no agent answered."""
    lines = [m for m in history if m.get("content")]
    return [
        line
        for i, line in enumerate(lines)
        if _role(line) == ParlantRole.ASSISTANT
        or (i + 1 < len(lines) and _role(lines[i + 1]) == ParlantRole.ASSISTANT)
    ]


def name_this_agent_in_history(
    history: ParlantMessages, *, agent_id: str | None, agent_name: str, participants: list[Any]
) -> ParlantMessages:
    """``history`` with this agent's mentions in customer lines turned into its name."""
    renamed: ParlantMessages = []
    for line in history:
        content = line.get("content", "")
        if _role(line) != ParlantRole.USER or not content:
            renamed.append(line)
            continue
        new = name_this_agent(
            content, agent_id=agent_id, agent_name=agent_name, participants=participants
        )
        renamed.append(line if new == content else ParlantMessage(**{**line, "content": new}))
    return renamed


async def inject_history(
    *, app: Any, session_id: Any, history: ParlantMessages, agent_name: str
) -> int:
    """Post the complete exchanges of ``history`` to the session; returns how many.

    A line that cannot be posted is logged and skipped: an old line must not cost the turn.
    """
    from parlant.core.app_modules.sessions import Moderation
    from parlant.core.sessions import EventKind, EventSource

    posted = 0
    for line in complete_exchanges(history):
        text = line.get("content", "")
        try:
            if _role(line) == ParlantRole.USER:
                await app.sessions.create_customer_message(
                    session_id=session_id,
                    moderation=Moderation.NONE,
                    message=text,
                    source=EventSource.CUSTOMER,
                    trigger_processing=False,
                    metadata=dict(HISTORICAL),
                )
            else:
                await app.sessions.create_event(
                    session_id=session_id,
                    kind=EventKind.MESSAGE,
                    source=EventSource.AI_AGENT,
                    data={
                        "message": text,
                        "participant": {"display_name": line.get("sender") or agent_name},
                    },
                    metadata=dict(HISTORICAL),
                    trigger_processing=False,
                )
        except Exception as exc:
            logger.warning("Session %s: could not replay a history line: %s", session_id, exc)
            continue
        posted += 1
    return posted
