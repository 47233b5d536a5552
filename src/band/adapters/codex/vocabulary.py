"""The words of the Codex adapter's room commands and of Codex's sandbox modes.

``CodexCommand`` lists the ``/<word>`` commands the adapter answers itself (the approval
commands through the shared coding-agent relay); ``CodexSubcommand`` the second words of
``/model`` and ``/thread``; ``CodexSandboxMode`` the ``thread/start`` sandbox modes, which
are also what ``/sandbox`` accepts.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["CodexCommand", "CodexSandboxMode", "CodexSubcommand"]


class CodexCommand(StrEnum):
    """A room command the Codex adapter handles rather than forwarding to Codex."""

    HELP = "help"
    STATUS = "status"
    MODEL = "model"
    MODELS = "models"
    REASONING = "reasoning"
    APPROVALS = "approvals"
    APPROVE = "approve"
    APPROVE_SESSION = "approve-session"
    DECLINE = "decline"
    SANDBOX = "sandbox"
    PERMISSIONS = "permissions"
    THREADS = "threads"
    THREAD = "thread"
    USAGE = "usage"


class CodexSubcommand(StrEnum):
    """The second word of ``/model`` (``list``/``ls``) and ``/thread`` (``info``/``archive``)."""

    LIST = "list"
    LS = "ls"
    INFO = "info"
    ARCHIVE = "archive"


class CodexSandboxMode(StrEnum):
    """A ``thread/start`` sandbox mode, as ``/sandbox`` takes it."""

    READ_ONLY = "read-only"
    WORKSPACE_WRITE = "workspace-write"
    DANGER_FULL_ACCESS = "danger-full-access"
