"""Room commands addressed to a coding agent: ``/approve <token>``, ``/status``, ...

The platform prepends the agent's mention (``@[[id]]``, shown as ``@handle``), so leading
mentions are stripped before a message is read as a command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["APPROVAL_COMMANDS", "RoomCommand", "parse_command"]

_LEADING_MENTIONS = re.compile(r"^(?:\s*@(?:\[\[[^\]]+\]\]|[\w./-]+)[,:]?)+\s*")
APPROVAL_COMMANDS = ("approve", "decline", "approve-session")


@dataclass(frozen=True)
class RoomCommand:
    """``/name arg1 arg2``: ``name`` lower-cased, without the slash."""

    name: str
    args: tuple[str, ...]


def parse_command(content: str) -> RoomCommand | None:
    """The command in ``content``, or None when it is an ordinary message."""
    text = _LEADING_MENTIONS.sub("", content, count=1).strip()
    if not text.startswith("/") or len(text) < 2 or text[1].isspace():
        return None
    name, *args = text[1:].split()
    return RoomCommand(name.lower(), tuple(args))
