"""Copilot's ``ask_user`` tool answered by the people in the room (``ask_user="room"``).

The question is posted to the room as the turn's reply, mentioning who asked, and the tool
call is answered at once with an acknowledgement: the turn ends, and the person's answer
arrives as the room's next message on the same Copilot session. Waiting inside the turn
cannot work: a room's messages reach the agent one at a time (the answer would queue behind
the turn waiting for it), and Copilot keeps an unanswered ``ask_user`` open forever (no
timeout, not replayed when a session resumes). The request and response are plain dicts in
the SDK's ``UserInputRequest`` / ``UserInputResponse`` shapes, so nothing here imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "ASK_USER_ROOM",
    "QUESTION_DELIVERED_ANSWER",
    "ROOM_ASK_USER_GUIDANCE",
    "delivery_failed_answer",
    "freeform_answer",
    "question_delivered_answer",
    "render_room_question",
    "room_inactive_answer",
]

ASK_USER_ROOM = "room"

ROOM_ASK_USER_GUIDANCE = (
    "## Asking the people in the room\n\n"
    "When you need a decision, an answer or an approval from the people here, call the "
    "ask_user tool (with choices when there are some). The question is posted to the room "
    "for you. Its answer never comes within the same turn: it arrives later as a new "
    "message. After calling ask_user, end your turn."
)


# The tool's answer once the question is posted; ``{rendered}`` is the question as shown.
QUESTION_DELIVERED_ANSWER = (
    "(Posted to the room as below; the people there were notified. Their answer is "
    "not available in this turn: it will come as a later message, where a bare number "
    "picks that numbered option. End your turn now, without answering for them or "
    "asking again.)\n---\n{rendered}\n---"
)


def freeform_answer(text: str) -> dict[str, Any]:
    """``text`` as the tool's free-form answer (``UserInputResponse``)."""
    return {"answer": text, "wasFreeform": True}


def question_delivered_answer(rendered_question: str) -> dict[str, Any]:
    """The answer once the question (as rendered) is in the room: end the turn now."""
    return freeform_answer(QUESTION_DELIVERED_ANSWER.format(rendered=rendered_question))


def delivery_failed_answer(error: BaseException) -> dict[str, Any]:
    """The answer when posting the question to the room failed: go on without it."""
    return freeform_answer(
        f"(The question could not be posted to the room: {error}. Go on without the "
        "people's answer, or ask again later.)"
    )


def room_inactive_answer() -> dict[str, Any]:
    """The answer when the room is no longer in a turn: go on without its answer."""
    return freeform_answer("(The room is not in a turn; go on without its answer.)")


def render_room_question(request: Mapping[str, Any]) -> str:
    """The question as a room message: its choices numbered, then how to answer."""
    question = str(request.get("question") or "").strip()
    choices = [str(c) for c in request.get("choices") or []]
    if not choices:
        return question
    lines = [question, "", *(f"{n}. {c}" for n, c in enumerate(choices, 1)), ""]
    if request.get("allowFreeform", True):
        lines.append("Answer with a number or in your own words.")
    else:
        lines.append("Answer with the number of one option.")
    return "\n".join(lines)
