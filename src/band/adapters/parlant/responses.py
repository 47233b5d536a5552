"""Waiting for Parlant's answer to a turn, and relaying it to the room.

Parlant answers with AI-agent ``message`` events; a preamble (tagged ``__preamble__``, an
acknowledgement before tools run) is never relayed. The final messages of one batch are joined
into one reply to the person who asked. Once a Band tool has replied or declined, Parlant's
own text is not relayed. An ``error`` status event (the engine failed) fails the turn, and so
does the end of the engine's turn with no reply at all (Parlant swallows a message generation
that failed three times, e.g. when the NLP service raised): the runtime then reports it once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from enum import Enum
from typing import Any, NamedTuple

from band.core.delivery import relay_reply
from band.core.protocols import AgentToolsProtocol

__all__ = [
    "PREAMBLE_TAG",
    "AgentMessages",
    "ParlantProcessingError",
    "PollMiss",
    "agent_messages",
    "next_agent_events",
    "relay_agent_response",
]

logger = logging.getLogger(__name__)

PREAMBLE_TAG = "__preamble__"
BACKOFF = 0.05
SEPARATOR = "\n\n"
NO_REPLY_COMPLETED = "Parlant completed the turn without a reply (message generation failed)"


class ParlantProcessingError(RuntimeError):
    """Parlant's engine failed the turn."""


class PollMiss(Enum):
    """A poll window that gave nothing to read."""

    NO_UPDATE = 1  # the window passed without a new event
    NOT_VISIBLE = 2  # an update was signalled but no event can be read yet
    FAILED = 3  # reading Parlant's events raised


class AgentMessages(NamedTuple):
    """What one batch of agent message events means for the turn."""

    offset: int
    final_texts: list[str]
    final_seen: bool  # an empty final message still ends the wait


def _data(event: Any) -> dict[str, Any]:
    return event.data if isinstance(event.data, dict) else {}


def agent_messages(events: Sequence[Any], *, offset: int) -> AgentMessages:
    """Read the message events of a batch past ``offset`` (preambles skipped)."""
    texts: list[str] = []
    final_seen = False
    for event in events:
        offset = max(offset, int(event.offset))
        data = event.data
        text = str(data.get("message") or "") if isinstance(data, dict) else str(data or "")
        tags = [str(t) for t in data.get("tags") or ()] if isinstance(data, dict) else []
        if PREAMBLE_TAG in tags:
            continue
        final_seen = True
        if text.strip():
            texts.append(text)
    return AgentMessages(offset, texts, final_seen)


async def next_agent_events(
    *, app: Any, session_id: Any, room_id: str, offset: int, window: float
) -> Sequence[Any] | PollMiss:
    """The agent's message and status events after ``offset``, waiting up to ``window``."""
    from parlant.core.async_utils import Timeout
    from parlant.core.sessions import EventKind, EventSource

    filters: dict[str, Any] = {
        "session_id": session_id,
        "min_offset": offset + 1,
        "kinds": [EventKind.MESSAGE, EventKind.STATUS],
        "source": EventSource.AI_AGENT,
    }
    try:
        if not await app.sessions.wait_for_more_events(**filters, timeout=Timeout(window)):
            return PollMiss.NO_UPDATE
        events = await app.sessions.find_events(**filters, trace_id=None)
    except Exception:
        logger.exception("Room %s: reading Parlant's events failed", room_id)
        return PollMiss.FAILED
    if not events:
        logger.warning("Room %s: events signalled but none found; still waiting", room_id)
        return PollMiss.NOT_VISIBLE
    return sorted(events, key=lambda e: int(e.offset))


def _status(event: Any) -> tuple[str | None, bool]:
    """A status event's failure text (None when it is no failure), and whether it ends the
    engine's turn."""
    data = _data(event)
    raw = data.get("data")
    detail: dict[str, Any] = raw if isinstance(raw, dict) else {}
    if data.get("status") == "error":
        text = str(detail.get("exception") or "Parlant reported an error")
        return text.strip().splitlines()[-1], False
    return None, data.get("status") == "ready" and detail.get("stage") == "completed"


async def relay_agent_response(
    *,
    app: Any,
    session_id: Any,
    room_id: str,
    min_offset: int,
    tools: AgentToolsProtocol,
    sender_name: str,
    timeout: float,  # noqa: ASYNC109 - a budget split into poll windows, not one await
    poll: float,
) -> bool:
    """Relay Parlant's final reply to ``sender_name`` (waiting in ``poll`` windows up to
    ``timeout``). Returns True when the wait gave up with no answer and the engine may still
    be working; raises ``ParlantProcessingError`` when the engine failed the turn."""
    from parlant.core.sessions import EventKind

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    offset = min_offset
    while (remaining := deadline - loop.time()) > 0:
        polled = await next_agent_events(
            app=app,
            session_id=session_id,
            room_id=room_id,
            offset=offset,
            window=min(poll, remaining),
        )
        if polled is PollMiss.FAILED:
            raise ParlantProcessingError("reading Parlant's events failed")
        if polled is PollMiss.NO_UPDATE and tools.turn.replied:
            return False
        if isinstance(polled, PollMiss):
            await asyncio.sleep(min(BACKOFF, max(0.0, deadline - loop.time())))
            continue
        messages = [e for e in polled if e.kind == EventKind.MESSAGE]
        batch = agent_messages(messages, offset=offset)
        for event in polled:
            offset = max(offset, int(event.offset))
            if event.kind != EventKind.STATUS:
                continue
            failure, ended = _status(event)
            if failure is not None:
                raise ParlantProcessingError(failure)
            if ended and not batch.final_seen and not tools.turn.replied:
                raise ParlantProcessingError(NO_REPLY_COMPLETED)
        if not batch.final_seen:
            continue
        reply = SEPARATOR.join(batch.final_texts)
        if tools.turn.replied:
            if reply:
                logger.info("Room %s: a tool already answered; Parlant's text not sent", room_id)
        elif reply:
            await relay_reply(tools, reply, mentions=[sender_name])
        else:
            logger.warning("Room %s: Parlant's final message was empty", room_id)
        return False
    if tools.turn.replied:
        return False
    logger.warning("Room %s: timed out after %ss waiting for agent response", room_id, timeout)
    return True
