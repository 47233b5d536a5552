"""Waiting for the Parlant agent's reply to one customer message.

Parlant posts the reply as AI-agent ``message`` events; preamble messages (tagged
``__preamble__``) never count and are never posted. An ``error`` status event (the engine
failed) ends the wait with :class:`ParlantProcessingError`, and so does the end of the
engine's turn without any reply: Parlant swallows a message generation that failed three
times (e.g. the NLP service raised) and simply completes. The wait runs in ``poll`` windows
up to ``timeout`` and also ends once a guideline's tool already replied in the room.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any

from band.core.turn import Turn

__all__ = ["PREAMBLE_TAG", "ParlantProcessingError", "ReplyOutcome", "wait_for_reply"]

logger = logging.getLogger("band.adapters.parlant.replies")
PREAMBLE_TAG = "__preamble__"
BACKOFF = 0.05
NO_REPLY_COMPLETED = "Parlant completed the turn without a reply (message generation failed)"


class ParlantProcessingError(RuntimeError):
    """Parlant's engine failed the turn (it posted an ``error`` status event)."""


@dataclass
class ReplyOutcome:
    """``texts`` are the final messages; ``settled`` means a tool already answered."""

    texts: list[str]
    settled: bool = False
    timed_out: bool = False


def _failure_of(event: Any) -> str | None:
    """The exception text of an ``error`` status event, else None."""
    data = event.data if isinstance(event.data, dict) else {}
    if data.get("status") != "error":
        return None
    detail = data.get("data")
    text = detail.get("exception") if isinstance(detail, dict) else None
    return str(text or "Parlant reported an error")


def _completed(event: Any) -> bool:
    """The engine's end-of-turn status (``ready`` at stage ``completed``)."""
    data = event.data if isinstance(event.data, dict) else {}
    detail = data.get("data")
    return (
        data.get("status") == "ready"
        and isinstance(detail, dict)
        and (detail.get("stage") == "completed")
    )


def _message_of(event: Any) -> tuple[str, bool]:
    data = event.data if isinstance(event.data, dict) else {}
    text = data.get("message") or ""
    tags = data.get("tags") or []
    return str(text), PREAMBLE_TAG in tags


async def wait_for_reply(
    app: Any,
    session_id: str,
    offset: int,
    turn: Turn,
    *,
    timeout: float,  # noqa: ASYNC109 - a budget split into poll windows, not one await
    poll: float,
) -> ReplyOutcome:
    from parlant.core.async_utils import Timeout
    from parlant.core.sessions import EventKind, EventSource

    deadline = time.monotonic() + timeout
    min_offset = offset + 1
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return ReplyOutcome([], settled=turn.replied, timed_out=not turn.replied)
        window = min(poll, remaining)
        filters: dict[str, Any] = {
            "session_id": session_id,
            "min_offset": min_offset,
            "kinds": [EventKind.MESSAGE, EventKind.STATUS],
            "source": EventSource.AI_AGENT,
        }
        has_more = await app.sessions.wait_for_more_events(**filters, timeout=Timeout(window))
        if not has_more:
            if turn.replied:
                return ReplyOutcome([], settled=True)
            await asyncio.sleep(BACKOFF)
            continue
        events = await app.sessions.find_events(**filters, trace_id=None)
        if not events:
            logger.warning("Session %s: events signalled but none found", session_id)
            await asyncio.sleep(BACKOFF)
            continue
        finals: list[str] = []
        for event in sorted(events, key=lambda e: int(e.offset)):
            min_offset = max(min_offset, int(event.offset) + 1)
            if event.kind == EventKind.STATUS:
                failure = _failure_of(event)
                if failure is not None:
                    raise ParlantProcessingError(failure.strip().splitlines()[-1])
                if _completed(event) and not finals:
                    if turn.replied:
                        return ReplyOutcome([], settled=True)
                    # Parlant swallows failed message generations: it just ends the turn
                    raise ParlantProcessingError(NO_REPLY_COMPLETED)
                continue
            text, preamble = _message_of(event)
            if not preamble:
                finals.append(text)
        if finals:
            return ReplyOutcome([t for t in finals if t.strip()], settled=turn.replied)
