"""An agent's turn on one message, as a person opens it from the message's delivery status:
when it was delivered, when processing began, each step the agent posted in the room while
it worked (tool calls paired with their results and timed, thoughts, usage, errors, the
reply), how it ended and how long it took. Read again while the turn runs.

Which posts belong to the turn: those whose ``metadata.turn_id`` names the message (our SDK
tags every event and reply of a turn with it), so two turns of one agent running at once in
one room never mix. An agent that tags nothing (another SDK) gets the untagged posts that
follow the message until its turn ended, as before."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from band_protocol import iso, utcnow

from ..errors import NotFound
from ..store.models import Agent, Message
from .deliveries.wire import delivery_statuses
from .identity.principals import Principal
from .rooms.membership import room_for

MAX_STEPS = 500
GRACE = timedelta(seconds=2)
"""Events an agent posts just after its mark (a reply sent after ``processed``) still count."""


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _ms(start: datetime | None, end: datetime | None) -> int | None:
    if start is None or end is None:
        return None
    return max(0, round((end - start).total_seconds() * 1000))


def _json(content: str) -> dict[str, Any]:
    try:
        value = json.loads(content)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def steps_of(rows: list[Message]) -> list[dict[str, Any]]:
    """The turn's steps in order; a tool result joins its call (by ``tool_call_id``)."""
    steps: list[dict[str, Any]] = []
    calls: dict[str, dict[str, Any]] = {}
    for m in rows:
        at = _aware(m.created_at)
        base = {"id": m.id, "at": iso(at)}
        body = _json(m.content) if m.message_type in ("tool_call", "tool_result") else {}
        call_id = str(body.get("tool_call_id") or (m.meta or {}).get("tool_call_id") or "")
        if m.message_type == "tool_call":
            step = {**base, "kind": "tool", "name": str(body.get("name") or "tool"),
                    "args": body.get("args", m.content), "result": None, "failed": False,
                    "duration_ms": None, "_at": at}  # fmt: skip
            steps.append(step)
            if call_id:
                calls[call_id] = step
        elif m.message_type == "tool_result" and call_id in calls:
            call = calls.pop(call_id)
            output = body.get("output", m.content)
            call["result"] = output
            call["failed"] = bool((m.meta or {}).get("is_error")) or (
                isinstance(output, str) and output.startswith("Error")
            )
            call["duration_ms"] = _ms(call["_at"], at)
        elif m.message_type == "task" and isinstance((m.meta or {}).get("band_usage"), dict):
            steps.append({**base, "kind": "usage", "usage": m.meta["band_usage"]})
        elif m.message_type == "text":
            steps.append({**base, "kind": "reply", "text": m.content})
        else:
            steps.append({**base, "kind": m.message_type, "text": m.content})
    for step in steps:
        step.pop("_at", None)
    return steps


def turn_id_of(row: Message) -> str | None:
    """The turn a post says it belongs to (``metadata.turn_id``), if it says."""
    value = (row.meta or {}).get("turn_id")
    return value if isinstance(value, str) and value else None


def rows_of_turn(rows: list[Message], message_id: str, ended: datetime | None) -> list[Message]:
    """The agent's posts after the message that belong to its turn on it: the ones tagged
    with it when there are any, else the untagged ones until the turn ended (plus a grace)."""
    tagged = [m for m in rows if turn_id_of(m) == message_id]
    if tagged:
        return tagged
    untagged = [m for m in rows if turn_id_of(m) is None]
    if ended is None:
        return untagged
    return [m for m in untagged if _aware(m.created_at) <= ended + GRACE]


async def turn_of(
    session: AsyncSession, person: Principal, room_id: str, message_id: str, agent_id: str
) -> dict[str, Any]:
    """The agent's turn on the message, for a person in the room (404 otherwise)."""
    room = await room_for(session, person, room_id)
    trigger = await session.get(Message, message_id)
    if trigger is None or trigger.room_id != room.id:
        raise NotFound("Message not found")
    status = (
        (await delivery_statuses(session, [message_id], agent_id=agent_id))
        .get(message_id, {})
        .get(agent_id)
    )
    if status is None:
        raise NotFound("That agent has no turn on this message")
    agent = await session.get(Agent, agent_id)
    attempts = status["attempts"]
    delivered = _when(status["delivered_at"])
    began = _when(attempts[0]["started_at"]) if attempts else None
    ended = _when(status["processed_at"])
    if ended is None and status["status"] == "failed" and attempts:
        ended = _when(attempts[-1]["completed_at"])
    rows = list(
        await session.scalars(
            select(Message)
            .where(
                Message.room_id == room.id,
                Message.sender_id == agent_id,
                Message.seq > trigger.seq,
            )
            .order_by(Message.seq)
            .limit(MAX_STEPS)
        )
    )
    rows = rows_of_turn(rows, message_id, ended)
    running = status["status"] in ("delivered", "processing")
    return {
        "message_id": message_id,
        "agent": {"id": agent_id, "name": agent.name if agent else "Agent"},
        "status": status["status"],
        "running": running,
        "delivered_at": status["delivered_at"],
        "processing_at": iso(began) if began else None,
        "finished_at": iso(ended) if ended else None,
        "total_ms": _ms(delivered, ended if ended else (utcnow() if running else None)),
        "errors": [a["error"] for a in attempts if a.get("error")],
        "attempts": len(attempts),
        "steps": steps_of(rows),
    }
