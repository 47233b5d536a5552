"""The live turn's message as the room's Parlant customer posts it, and stopping the engine's
work on a session.

Parlant's prompt tells the model "you are an AI agent named <name>", while the room text says
``@[[<id>]]`` or ``@<handle>``: ``name_this_agent`` rewrites this agent's own mention to that
name so the model knows it is the one addressed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from typing import Any

from band.core.types import PlatformMessage
from band.runtime.formatters import mention_label

__all__ = [
    "PREAMBLE_TASK_QUALNAME",
    "SYSTEM_UPDATE_PREFIX",
    "await_stopped_task",
    "compose_user_message",
    "live_preamble_tasks",
    "name_this_agent",
    "post_user_message",
    "process_session_tag",
]

SYSTEM_UPDATE_PREFIX = "[System Update]: "
# A mention label goes on through word characters and . / -, so ``@ann`` is not a prefix
# match inside ``@ann.lee/bot``.
_LABEL_GOES_ON = r"[\w./-]"
# Parlant 3.x starts the preamble as a task of its own and does not cancel it with the
# session's processing; the coroutine is found by its qualified name.
PREAMBLE_TASK_QUALNAME = "AlphaEngine._get_preamble_task.<locals>.preamble_task"


def _field(participant: Any, key: str) -> str | None:
    value = (
        participant.get(key) if isinstance(participant, dict) else getattr(participant, key, None)
    )
    return value if isinstance(value, str) and value else None


def _own_tokens(agent_id: str, participants: list[Any]) -> list[str]:
    """How this agent's mention may be written, longest first (so no spelling eats another).

    Its label is left out when another participant has the same one: rewriting it would
    rename them too.
    """
    own: str | None = None
    others: set[str] = set()
    for participant in participants:
        label = mention_label(
            handle=_field(participant, "handle"), name=_field(participant, "name")
        )
        if _field(participant, "id") == agent_id:
            own = label
        elif label:
            others.add(label)
    tokens = {f"@[[{agent_id}]]"}
    if own and own not in others:
        tokens.add(f"@{own}")
    return sorted(tokens, key=len, reverse=True)


def name_this_agent(
    content: str, *, agent_id: str | None, agent_name: str, participants: list[Any]
) -> str:
    """``content`` with this agent's mentions replaced by ``agent_name``."""
    if not content or not agent_id or not agent_name:
        return content
    spelled = "|".join(re.escape(t) for t in _own_tokens(agent_id, participants))
    pattern = re.compile(rf"(?<!\S)(?:{spelled})(?!{_LABEL_GOES_ON})")
    return pattern.sub(lambda _: agent_name, content)


def compose_user_message(
    *,
    msg: PlatformMessage,
    participants_msg: str | None,
    contacts_msg: str | None,
    agent_id: str | None = None,
    agent_name: str = "",
    participants: list[Any] | None = None,
) -> str:
    """The text the customer posts: contact and roster updates (each as a
    ``[System Update]:`` paragraph), then ``[Sender]: message`` naming this agent."""
    content = name_this_agent(
        msg.content, agent_id=agent_id, agent_name=agent_name, participants=participants or []
    )
    parts = [
        f"{SYSTEM_UPDATE_PREFIX}{update}"
        for update in (contacts_msg, participants_msg)
        if update and update.strip()
    ]
    parts.append(dataclasses.replace(msg, content=content).format_for_llm())
    return "\n\n".join(parts)


def process_session_tag(session_id: Any) -> str:
    """The tag Parlant runs a session's processing under (cancel it to stop the engine)."""
    return f"process-session({session_id})"


def live_preamble_tasks(session_id: str) -> list[asyncio.Task[Any]]:
    """Preamble generations still running for ``session_id`` (not stopped with its tag)."""
    found: list[asyncio.Task[Any]] = []
    for task in asyncio.all_tasks():
        if task.done():
            continue
        frame = next(
            (f for f in task.get_stack() if f.f_code.co_qualname == PREAMBLE_TASK_QUALNAME), None
        )
        context = frame.f_locals.get("context") if frame is not None else None
        session = getattr(context, "session", None)
        if frame is not None and str(getattr(session, "id", "")) == str(session_id):
            found.append(task)
    return found


async def await_stopped_task(task: asyncio.Task[Any]) -> None:
    """Wait for ``task`` to end, however it ends (its outcome is consumed, not raised)."""
    await asyncio.wait({task})
    if not task.cancelled():
        task.exception()


async def post_user_message(*, app: Any, session_id: Any, message: str) -> int:
    """Post ``message`` as the room's customer, starting the engine; returns its offset."""
    from parlant.core.app_modules.sessions import Moderation
    from parlant.core.sessions import EventSource

    event = await app.sessions.create_customer_message(
        session_id=session_id,
        moderation=Moderation.NONE,
        message=message,
        source=EventSource.CUSTOMER,
        trigger_processing=True,
        metadata=None,
    )
    return int(event.offset)
