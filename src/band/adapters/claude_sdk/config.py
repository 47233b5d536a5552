"""``ClaudeSDKAdapterConfig``: how each room's Claude Code CLI is started and how its turns go.

Names and defaults follow band-sdk 6.0.1: ``permission_mode`` (default ``acceptEdits``) is
Claude Code's own; ``approvals`` (off by default) relays Claude's native tool calls (Bash,
Write, ...) to the room; ``cli`` says how the CLI process is launched, never how Band is
wired into it (flags the adapter owns are refused).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    PositiveFloat,
    PositiveInt,
    field_validator,
    model_validator,
)

from band.adapters._coding.approvals import ApprovalMode
from band.adapters._coding.retention import RoomRetention
from band.core.adapterconfig import BaseAdapterConfig
from band.core.turn_lifecycle import TURN_SETTLE_GRACE_S, TurnSettleTimeout
from band.integrations.claude_sdk.dedup_tools import DEFAULT_DEDUP_TTL_SECONDS
from band.integrations.claude_sdk.session_manager import default_claude_retention

__all__ = [
    "DEFAULT_MODEL",
    "INSTALL_COMMAND",
    "RESERVED_CLI_FLAGS",
    "ClaudeApprovalOptions",
    "ClaudeCLIOptions",
    "ClaudePermissionMode",
    "ClaudeSDKAdapterConfig",
]

DEFAULT_MODEL = "claude-sonnet-5-5"
CLI_VERSION = "2.1.332"
INSTALL_COMMAND = f"npm install -g @anthropic-ai/claude-code@{CLI_VERSION}"
RETENTION_REFUSED = (
    "Claude rooms cannot be suspended when idle: Claude Code's background tasks and hooks "
    "are not visible to the adapter, and stopping the CLI could cancel them."
)
# Flags the adapter sets itself, and flags that would unhook Band's tools, skip the room's
# approvals or break one session per room.
RESERVED_CLI_FLAGS = frozenset(
    {
        "add-dir",
        "allowedTools",
        "allowed-tools",
        "append-system-prompt",
        "continue",
        "dangerously-skip-permissions",
        "allow-dangerously-skip-permissions",
        "disallowedTools",
        "disallowed-tools",
        "effort",
        "fallback-model",
        "fork-session",
        "input-format",
        "max-thinking-tokens",
        "mcp-config",
        "model",
        "output-format",
        "permission-mode",
        "permission-prompt-tool",
        "print",
        "resume",
        "session-id",
        "setting-sources",
        "settings",
        "strict-mcp-config",
        "system-prompt",
        "system-prompt-file",
        "tools",
        "verbose",
    }
)


class ClaudePermissionMode(StrEnum):
    """Claude Code's permission modes (the SDK's ``PermissionMode`` values)."""

    DEFAULT = "default"
    ACCEPT_EDITS = "acceptEdits"
    PLAN = "plan"
    BYPASS_PERMISSIONS = "bypassPermissions"
    DONT_ASK = "dontAsk"  # denies every prompt without asking anyone
    AUTO = "auto"


class ClaudeCLIOptions(BaseModel):
    """How the ``claude`` process is launched.

    * ``cli_path``: the ``claude`` executable (default: the one bundled with
      ``claude-agent-sdk``); a path that does not exist is refused when the agent starts,
      naming the npm install command.
    * ``plugin_dirs`` / ``add_dirs``: local plugin folders to load; more folders Claude may use.
    * ``env``: extra environment of the CLI only (e.g. ``ANTHROPIC_BASE_URL``).
    * ``extra_args``: more flags by bare name (``{"flag": "value"}``, ``{"flag": None}``);
      flags in ``RESERVED_CLI_FLAGS`` are refused.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    cli_path: str | None = None
    plugin_dirs: tuple[str, ...] = ()
    add_dirs: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    extra_args: dict[str, str | None] = Field(default_factory=dict)

    @field_validator("extra_args")
    @classmethod
    def _safe_flags(cls, value: dict[str, str | None]) -> dict[str, str | None]:
        dashed = sorted(flag for flag in value if flag.startswith("-"))
        if dashed:
            raise ValueError(f"extra_args keys are bare flag names: {dashed}")
        reserved = sorted(RESERVED_CLI_FLAGS & set(value))
        if reserved:
            raise ValueError(f"extra_args may not set adapter-owned CLI flags: {reserved}")
        return value


class ClaudeApprovalOptions(BaseModel):
    """Room approval of Claude's native tool calls; Band's own tools are never gated.

    ``manual`` asks the room (``/approve <id>``, ``/decline <id>``, ``/approve-session <id>``);
    ``auto_accept`` / ``auto_decline`` decide at once (announced with ``text_notifications``).
    An unanswered request gets ``timeout_decision`` after ``wait_timeout_s``. At most
    ``max_pending_per_room`` wait per room (one more declines the oldest); with
    ``authorized_senders``, only those sender ids may answer (None: anyone in the room).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    mode: ApprovalMode
    text_notifications: bool = True
    wait_timeout_s: PositiveFloat = 300.0
    timeout_decision: Literal["accept", "decline"] = "decline"
    max_pending_per_room: PositiveInt = 50
    authorized_senders: frozenset[str] | None = None


class ClaudeSDKAdapterConfig(BaseAdapterConfig):
    """Settings of a ``ClaudeSDKAdapter`` (frozen, unknown fields rejected).

    * ``model`` (default ``claude-sonnet-5-5``), ``fallback_model``, ``effort``,
      ``max_thinking_tokens``: passed to the CLI.
    * ``permission_mode``: Claude Code's mode (``dontAsk`` cannot be combined with
      ``approvals``, which it would never consult).
    * ``cwd``: one shared working folder; without it each room works in its own folder.
    * ``setting_sources``: host settings the CLI loads (none by default, so the host's
      ``~/.claude`` does not change what the agent can do).
    * ``turn_timeout_s``: a turn running longer is interrupted and reported (None: no limit).
    * ``turn_settle_timeout_s``: how long a leave or stop lets the room's running turn end
      before cancelling it.
    * ``send_message_dedup_ttl_seconds``: identical ``band_send_message`` calls of a room
      within this window post once (the CLI may retry a call); 0 turns that off.
    * ``retention``: ``transition_timeout_s`` bounds each CLI start (default 60 s); idle
      suspension is not offered.
    """

    model: str | None = None
    fallback_model: str | None = None
    retention: RoomRetention = Field(
        default_factory=lambda: RoomRetention(**default_claude_retention().model_dump())
    )
    custom_section: str | None = None
    system_prompt: str | None = None
    max_thinking_tokens: PositiveInt | None = None
    effort: Literal["low", "medium", "high", "xhigh", "max"] | None = None
    permission_mode: ClaudePermissionMode = ClaudePermissionMode.ACCEPT_EDITS
    cwd: str | None = None
    setting_sources: tuple[Literal["user", "project", "local"], ...] = ()
    turn_timeout_s: PositiveFloat | None = None
    turn_settle_timeout_s: TurnSettleTimeout = TURN_SETTLE_GRACE_S
    send_message_dedup_ttl_seconds: NonNegativeFloat = DEFAULT_DEDUP_TTL_SECONDS
    max_history_messages: PositiveInt = 50
    cli: ClaudeCLIOptions = Field(default_factory=ClaudeCLIOptions)
    approvals: ClaudeApprovalOptions | None = None

    @field_validator("retention", mode="before")
    @classmethod
    def _retention(cls, value: object) -> RoomRetention:
        return RoomRetention.disabled(value, RETENTION_REFUSED)

    @model_validator(mode="after")
    def _approvals_can_decide(self) -> ClaudeSDKAdapterConfig:
        if self.approvals is None:
            return self
        if self.permission_mode is ClaudePermissionMode.DONT_ASK:
            raise ValueError(
                "permission_mode='dontAsk' denies tool calls without consulting approvals; "
                "set approvals=None"
            )
        if self.turn_timeout_s is not None and self.approvals.wait_timeout_s >= self.turn_timeout_s:
            raise ValueError(
                "approvals.wait_timeout_s must be less than turn_timeout_s, or the turn "
                "times out before the approval does"
            )
        return self
