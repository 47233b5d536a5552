"""Codex glue: the vocabulary of ``codex app-server`` (``types``) and its JSON-RPC clients.

``CodexStdioClient`` starts ``codex app-server`` and talks over its stdio,
``CodexWebSocketClient`` talks to one listening on a WebSocket; both share ``rpc_base``.
The adapter is ``band.adapters.codex.CodexAdapter`` (the ``codex`` extra needs only the Codex
CLI).
"""

from .rpc_base import TRANSPORT_CLOSED, CodexJsonRpcError, OverloadRetryPolicy, RpcEvent
from .stdio_client import CodexStdioClient
from .types import (
    CODEX_APPROVAL_METHODS,
    CODEX_PROVIDER,
    DYNAMIC_TOOL_CALL_METHOD,
    ApprovalAuditEntry,
    CodexApprovalMethod,
    CodexItemType,
    CodexPlanStep,
    CodexRequestMethod,
    CodexSessionState,
    CodexTokenUsage,
    build_agent_failure,
    parse_plan_steps,
)
from .websocket_client import CodexWebSocketClient

__all__ = [
    "CODEX_APPROVAL_METHODS",
    "CODEX_PROVIDER",
    "DYNAMIC_TOOL_CALL_METHOD",
    "TRANSPORT_CLOSED",
    "ApprovalAuditEntry",
    "CodexApprovalMethod",
    "CodexItemType",
    "CodexJsonRpcError",
    "CodexPlanStep",
    "CodexRequestMethod",
    "CodexSessionState",
    "CodexStdioClient",
    "CodexTokenUsage",
    "CodexWebSocketClient",
    "OverloadRetryPolicy",
    "RpcEvent",
    "build_agent_failure",
    "parse_plan_steps",
]
