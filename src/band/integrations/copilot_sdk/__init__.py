"""Helpers of ``CopilotSDKAdapter`` (``band.adapters.copilot_sdk``): Copilot's ``ask_user``
questions routed to the room (:mod:`.room_ask_user`)."""

from __future__ import annotations

from .room_ask_user import (
    ASK_USER_ROOM,
    QUESTION_DELIVERED_ANSWER,
    ROOM_ASK_USER_GUIDANCE,
    render_room_question,
)

__all__ = [
    "ASK_USER_ROOM",
    "QUESTION_DELIVERED_ANSWER",
    "ROOM_ASK_USER_GUIDANCE",
    "render_room_question",
]
