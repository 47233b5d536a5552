"""``PendingApproval``: one approval request of Codex's, waiting for the room's decision.

Codex asks with a JSON-RPC request (``item/commandExecution/requestApproval``,
``item/fileChange/requestApproval``); the answer must go back under that request's id, so
the record carries it (``request_id``) from the process's event to the response. The
decision arrives on ``future`` (from the approvals relay, or ``decline`` when the request
is replaced by a redelivery of itself or its process is lost). ``native_key`` names what
Codex asks about (its approval, item or call id), so a redelivered request replaces the
one still waiting instead of asking the room twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from band.integrations.codex.rpc_base import JsonRpcId

__all__ = ["ApprovalDecision", "PendingApproval", "native_approval_key"]

ApprovalDecision = Literal["accept", "acceptForSession", "decline"]
_KEYS = ("approvalId", "approval_id", "itemId", "callId")


def native_approval_key(request_id: JsonRpcId, params: Mapping[str, Any]) -> str:
    """What Codex asks about: its approval, item or call id, else the request's own id."""
    for key in _KEYS:
        value = params.get(key)
        if isinstance(value, str) and value:
            return value
    return f"req-{request_id}"


@dataclass
class PendingApproval:
    """An approval request Codex waits on, answered to ``request_id`` once decided."""

    request_id: JsonRpcId
    method: str
    summary: str
    created_at: datetime
    future: asyncio.Future[ApprovalDecision]
    session_key: str = ""
    native_key: str = ""

    def decide(self, decision: ApprovalDecision) -> bool:
        """Settle the request with ``decision``; False when it was settled already."""
        if self.future.done():
            return False
        self.future.set_result(decision)
        return True

    def response(self) -> dict[str, Any]:
        """The JSON-RPC result answering the request (once ``future`` is done)."""
        return {"decision": self.future.result()}
