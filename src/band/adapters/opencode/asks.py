"""What a room reads and writes about OpenCode's asks: the open permission and question asks,
the words that answer a permission ask, the answers to a question ask, and the room message
that asks OpenCode's questions."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from band.integrations.opencode import ApprovalReply, OpencodeQuestion

__all__ = [
    "DECLINED_ANSWER",
    "REJECTION_NOTE",
    "PendingPermission",
    "PendingQuestion",
    "PermissionCommand",
    "PermissionReplyWord",
    "format_question_prompt",
    "parse_permission_reply",
    "parse_question_answers",
]

# Sent with a rejection so OpenCode hands the turn back to the model, which then answers.
REJECTION_NOTE = "The person declined this. Do not retry it another way; tell them instead."
# The answer to each question of a declined ask (a bare reject would end the turn).
DECLINED_ANSWER = "The person declined to answer. Go on without it and reply to them."


@dataclass
class PendingPermission:
    """An open permission ask: the tool or rule, and what it would touch."""

    request_id: str
    permission: str
    patterns: list[str]


@dataclass
class PendingQuestion:
    """An open question ask: its questions, answered together."""

    request_id: str
    questions: list[OpencodeQuestion]


class PermissionReplyWord(StrEnum):
    """The words answering a permission ask in the room."""

    APPROVE = "approve"
    ALWAYS = "always"
    REJECT = "reject"


# Our coding adapters' own spellings are understood as well.
_REPLIES: dict[str, ApprovalReply] = {
    PermissionReplyWord.APPROVE: "once",
    PermissionReplyWord.ALWAYS: "always",
    PermissionReplyWord.REJECT: "reject",
    "approve-session": "always",
    "decline": "reject",
}


@dataclass(frozen=True)
class PermissionCommand:
    """A permission reply read from the room; ``request_id`` None when none was named."""

    reply: ApprovalReply
    request_id: str | None


def parse_permission_reply(content: str) -> PermissionCommand | None:
    """``approve|always|reject [<id>]`` (a leading ``/`` allowed) as a command, else None.

    A trailing "please" is no id.
    """
    words = content.split()
    if not words or (reply := _REPLIES.get(words[0].lstrip("/").lower())) is None:
        return None
    rest = [w for w in words[1:] if w.lower() != "please"]
    return PermissionCommand(reply, rest[0] if rest else None)


def parse_question_answers(content: str, pending: PendingQuestion) -> list[list[str]] | None:
    """The answers to ``pending``: the whole text for one question, else a non-empty line
    per question (extra lines dropped); None when there are too few."""
    count = len(pending.questions)
    if count == 1:
        text = content.strip()
        return [[text]] if text else None
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    return [[line] for line in lines[:count]] if count and len(lines) >= count else None


def format_question_prompt(questions: list[OpencodeQuestion], request_id: str) -> str:
    """The room message asking OpenCode's questions."""
    lines = [f"OpenCode has a question (`{request_id}`):"]
    lines += [f"{n}. {q.question}" for n, q in enumerate(questions, 1)]
    how = "your answer" if len(questions) == 1 else "one line per question, in order"
    lines.append(f"Answer with {how}, or `reject` to leave it unanswered.")
    return "\n".join(lines)
