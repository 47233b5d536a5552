"""A peer's approval request in the room, asked of the editor as ``session/request_permission``.

Band's coding adapters (Codex, ACP clients) ask in the room with a notice naming an approval
id (``Approval id: `1a2b3c4d`. Reply `/approve 1a2b3c4d` ...``) and take ``/approve``,
``/approve-session`` or ``/decline`` with that id. The editor's choice becomes that command,
posted back to the peer that asked.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from band._extras import needs_extra

with needs_extra("the ACP server needs agent-client-protocol", "acp"):
    from acp.schema import PermissionOption, ToolCallUpdate

__all__ = ["approval_token", "ask_editor", "is_approval_status"]

logger = logging.getLogger("band.integrations.acp.server")
_ASK = re.compile(r"Approval id: `([0-9a-f]{8})`")
_STATUS = re.compile(r"Approval `[0-9a-f]{8}` (resolved|timed out|is no longer pending)")
# option id -> (label, ACP kind); the option id is the room command that answers.
OPTIONS = {
    "approve": ("Approve", "allow_once"),
    "approve-session": ("Approve for this session", "allow_always"),
    "decline": ("Decline", "reject_once"),
}


def approval_token(text: str) -> str | None:
    """The approval id a peer's notice asks about, if it is an approval request."""
    match = _ASK.search(text)
    return match.group(1) if match else None


def is_approval_status(text: str) -> bool:
    """A peer's word on an approval (resolved, timed out): news, not its answer."""
    return _STATUS.search(text) is not None


async def ask_editor(client: Any, session_id: str, token: str, text: str) -> str:
    """Ask the editor; the room command that carries its answer (``decline`` if dismissed)."""
    options = [
        PermissionOption(option_id=key, name=label, kind=kind)
        for key, (label, kind) in OPTIONS.items()
    ]
    title = text.split(" Approval id:", 1)[0].strip() or f"Approval {token}"
    call = ToolCallUpdate(tool_call_id=f"band-approval-{token}", title=title, status="pending")
    try:
        answer = await client.request_permission(
            session_id=session_id, tool_call=call, options=options
        )
    except Exception as exc:
        logger.warning("Approval %s: the editor did not answer (%s); declining", token, exc)
        return "decline"
    chosen = getattr(answer.outcome, "option_id", None)
    return chosen if chosen in OPTIONS else "decline"
