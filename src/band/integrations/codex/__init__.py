"""Codex glue: the vocabulary of ``codex app-server`` (``types``) the Codex adapter speaks.

The adapter is ``band.adapters.codex.CodexAdapter`` (the ``codex`` extra needs only the Codex
CLI).
"""

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

__all__ = [
    "CODEX_APPROVAL_METHODS",
    "CODEX_PROVIDER",
    "DYNAMIC_TOOL_CALL_METHOD",
    "ApprovalAuditEntry",
    "CodexApprovalMethod",
    "CodexItemType",
    "CodexPlanStep",
    "CodexRequestMethod",
    "CodexSessionState",
    "CodexTokenUsage",
    "build_agent_failure",
    "parse_plan_steps",
]
