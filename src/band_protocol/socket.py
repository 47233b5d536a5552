"""Realtime payloads pushed over the Phoenix socket, and topic names."""

from __future__ import annotations

from typing import Literal, get_args

from ._base import WireModel

TopicKind = Literal[
    "agent_control",
    "agent_rooms",
    "chat_room",
    "room_participants",
    "agent_contacts",
    "user_rooms",
    "user_notifications",  # openband: a person's mentions and direct messages, on any page
]
TOPIC_KINDS: tuple[str, ...] = get_args(TopicKind)


CLAIM_ON_PUSH_PARAM = "claim_on_push"
"""An agent socket's query parameter (our extension): ``claim`` asks the platform to claim a
message for the agent with its ``message_created`` push (attempt 1 opened in the post's own
transaction, shown in the push's ``metadata.delivery_status``) when the agent has no live
attempt in that room; ``working`` also starts the working indicator, as a claim with
``Band-Working: true`` does. band-sdk never sends it (docs/protocol-decisions.md)."""
CLAIM_ON_PUSH_MODES = ("claim", "working")


def topic(kind: str, ident: str) -> str:
    return f"{kind}:{ident}"


def split_topic(name: str) -> tuple[str, str] | None:
    kind, sep, ident = name.partition(":")
    if not sep or not ident or kind not in TOPIC_KINDS:
        return None
    return kind, ident


class Supersede(WireModel):
    reason: str = "superseded"
    message: str = "Another connection for this agent took over"
    correlation_id: str | None = None
    retryable: bool = False


class AgentControl(WireModel):
    mode: Literal["interrupt", "stop", "play"]
    scope: Literal["agent", "room"]
    agent_id: str
    execution_id: str | None = None
    room_id: str | None = None
    correlation_id: str
