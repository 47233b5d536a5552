"""``CodexAdapterConfig``: how ``codex app-server`` is started and how its turns behave."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PositiveFloat, PositiveInt, model_validator

from band.adapters._coding.approvals import ApprovalMode, Decision
from band.adapters._coding.workspace import env_defaults

__all__ = ["DEFAULT_MODEL", "INSTALL_COMMAND", "CodexAdapterConfig"]

DEFAULT_MODEL = "gpt-6-luna"
INSTALL_COMMAND = "npm install -g @openai/codex@0.169.0"

ApprovalPolicy = Literal["never", "on-request", "on-failure", "untrusted"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
Personality = Literal["none", "friendly", "pragmatic"]
ReasoningEffort = Literal["none", "minimal", "low", "medium", "high", "xhigh"]
ReasoningSummary = Literal["auto", "concise", "detailed", "none"]


_FROM_ENV = (
    "model",
    "reasoning_effort",
    "approval_policy",
    "approval_mode",
    "turn_timeout_s",
    "codex_command",
    "codex_env",
)


class CodexAdapterConfig(BaseModel):
    """Settings of a ``CodexAdapter`` (frozen, unknown fields rejected).

    Unset ``model``, ``reasoning_effort``, ``approval_policy``, ``approval_mode``,
    ``turn_timeout_s``, ``codex_command`` and ``codex_env`` are read from ``CODEX_<FIELD>``
    environment variables (``CODEX_COMMAND`` split on whitespace, ``CODEX_CODEX_ENV`` JSON);
    an explicit value wins.

    * ``model``: None asks Codex's ``model/list`` for the first visible model, else
      ``gpt-6-luna``. ``approval_policy`` is Codex's: ``never`` asks nothing; with
      ``on-request`` or ``untrusted`` commands and file changes are sent for approval.
    * ``approval_mode``: how those requests are decided (``manual`` asks the room).
      ``session_approval_granularity``: what ``/approve-session`` remembers, the whole
      command or only its program.
    * ``codex_command``: the argv to start (default ``codex app-server --listen stdio://``
      from PATH); ``codex_env`` is added to the process environment.
    * ``inject_history_on_resume_failure``: when a room's thread cannot be resumed, the
      new thread's first turn carries the last ``max_history_messages`` room messages.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = None
    reasoning_effort: ReasoningEffort | None = None
    reasoning_summary: ReasoningSummary | None = None
    approval_policy: ApprovalPolicy = "never"
    personality: Personality = "pragmatic"
    sandbox: SandboxMode = "workspace-write"
    system_prompt: str | None = None
    custom_section: str = ""
    include_base_instructions: bool = True
    approval_mode: ApprovalMode = ApprovalMode.MANUAL
    approval_wait_timeout_s: PositiveFloat = 300.0
    approval_timeout_decision: Literal[Decision.ACCEPT, Decision.DECLINE] = Decision.DECLINE
    session_approval_granularity: Literal["full_command", "binary"] = "full_command"
    turn_timeout_s: PositiveFloat = 180.0
    codex_command: list[str] | None = None
    codex_env: dict[str, str] = Field(default_factory=dict)
    inject_history_on_resume_failure: bool = True
    max_history_messages: PositiveInt = 50
    transport: str = "stdio"
    cwd: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return env_defaults(
            "CODEX_",
            _FROM_ENV,
            data,
            split=("codex_command",),
            structured=("codex_env",),
        )
