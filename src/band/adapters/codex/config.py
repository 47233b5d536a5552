"""``CodexAdapterConfig``: how ``codex app-server`` is started and how its turns behave."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Any, Literal

from pydantic import Field, PositiveFloat, PositiveInt, field_validator, model_validator

from band.adapters._coding.approvals import ApprovalMode
from band.adapters._coding.config import CodingAgentConfig
from band.adapters._coding.retention import RoomRetention
from band.adapters._coding.workspace import env_defaults
from band.workspaces import WorkspaceResolver

from .vocabulary import CodexSandboxMode

__all__ = ["DEFAULT_MODEL", "INSTALL_COMMAND", "SANDBOX_MODES", "CodexAdapterConfig"]

DEFAULT_MODEL = "gpt-6-luna"
INSTALL_COMMAND = "npm install -g @openai/codex@0.169.0"

ApprovalPolicy = Literal["never", "on-request", "on-failure", "untrusted"]
SandboxMode = Literal["read-only", "workspace-write", "danger-full-access"]
SANDBOX_MODES: tuple[str, ...] = tuple(CodexSandboxMode)
Personality = Literal["none", "friendly", "pragmatic"]
ReasoningSummary = Literal["auto", "concise", "detailed", "none"]

# Codex's sandbox policy types (``turn/start``'s ``sandboxPolicy``) and the thread-level
# mode each one corresponds to (``externalSandbox`` has none).
POLICY_MODES: dict[str, str | None] = {
    "readOnly": "read-only",
    "workspaceWrite": "workspace-write",
    "dangerFullAccess": "danger-full-access",
    "externalSandbox": None,
}
RETENTION_REFUSED = (
    "Codex rooms cannot be suspended when idle: an idle app-server may still run hooks or "
    "delegated work, and stopping it would cancel that work."
)
# Read from the environment only under another name, or never.
_ENV_ALIASES = {
    "codex_command": "CODEX_COMMAND",
    "codex_ws_url": "CODEX_WS_URL",
    "emit_turn_task_markers": "CODEX_TURN_TASK_MARKERS",
}
_NOT_FROM_ENV = ("cwd", "workspace_for_room")
_STRUCTURED = (
    "retention",
    "sandbox_policy",
    "codex_env",
    "additional_dynamic_tools",
    "skill_roots",
)


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def normalize_sandbox_policy(policy: dict[str, Any]) -> dict[str, Any]:
    """``policy`` with camelCase keys and type (``workspace-write`` -> ``workspaceWrite``)."""
    out = {_camel(str(k)): v for k, v in policy.items()}
    kind = str(out.get("type") or "")
    kind = _camel(kind.replace("-", "_"))
    if kind not in POLICY_MODES:
        raise ValueError(
            f"sandbox_policy type must be one of {', '.join(POLICY_MODES)}, got {kind or None!r}"
        )
    out["type"] = kind
    return out


def _absolute(path: str) -> bool:
    return PurePosixPath(path).is_absolute() or PureWindowsPath(path).is_absolute()


class CodexAdapterConfig(CodingAgentConfig):
    """Settings of a ``CodexAdapter`` (frozen, unknown fields rejected).

    Any field not given is read from ``CODEX_<FIELD>`` (``CODEX_MODEL``,
    ``CODEX_APPROVAL_MODE``, ...); lists and mappings there are JSON, except ``CODEX_COMMAND``
    (the ``codex_command`` argv, split on whitespace). ``emit_turn_task_markers`` also reads
    ``CODEX_TURN_TASK_MARKERS``; ``cwd`` is never read. An explicit value wins.

    Model and turns:

    * ``model``: None asks Codex's ``model/list`` for the first visible model, else
      ``gpt-6-luna``; ``reasoning_effort`` / ``reasoning_summary`` go with every turn
      (efforts depend on the model, so they are checked by ``/reasoning``, not here).
    * ``approval_policy`` is Codex's own: ``never`` asks nothing; with ``on-request`` or
      ``untrusted`` commands and file changes are sent for approval.
    * ``sandbox``: the thread's sandbox mode (None: Codex's own default).
      ``sandbox_policy``: a full Codex sandbox policy
      (``{"type": "workspaceWrite", "networkAccess": true, ...}``, snake_case keys accepted)
      sent with every turn instead; it also fixes the thread's mode, and ``/sandbox``
      cannot override it.
    * ``system_prompt`` replaces Band's rendered prompt; ``custom_section`` is appended to
      it; ``include_base_instructions=False`` leaves Band's base instructions out.

    Approvals:

    * ``approval_mode``: ``manual`` asks the room (a notice with a token, answered by
      ``/approve``, ``/decline``, ``/approve-session``; after ``approval_wait_timeout_s``
      ``approval_timeout_decision`` applies); ``auto_accept`` / ``auto_decline`` decide at
      once and, with ``approval_text_notifications``, say so in the room each time.
    * ``session_approval_granularity``: what ``/approve-session`` remembers, the whole
      command or only its program (file changes: their paths).

    Process and tools:

    * ``codex_command``: the argv to start (default ``codex app-server --listen stdio://``
      from PATH); ``codex_env`` is added to the process environment.
    * ``enable_self_config_tools``: offer Codex ``setmodel`` / ``setreasoning``, which change
      the room's model and reasoning from the next turn on.
    * ``additional_dynamic_tools``: extra Codex dynamic tool specs (``name``,
      ``description``, ``inputSchema``), answered by a custom tool of the same name.
    * ``skill_roots``: absolute folders registered with ``skills/extraRoots/set``.
    * ``inject_history_on_resume_failure``: a room whose thread cannot be resumed starts a
      new one carrying the last ``max_history_messages`` room messages.

    Extra events (all off by default): ``stream_reasoning_events`` /
    ``stream_commentary_events`` post reasoning and commentary as streamed ``thought``
    chunks; ``stream_plan_events`` posts plan updates as ``task`` events (and plan text as
    streamed thoughts); ``emit_diff_events`` posts a turn's diff (up to 64 KiB);
    ``emit_token_usage_events`` posts Codex's token counts as they change;
    ``emit_turn_lifecycle_events`` posts a turn's start and end (and compactions);
    ``emit_turn_task_markers`` posts a "Codex turn" marker at start and end.

    Client and limits:

    * ``client_name`` / ``client_title`` / ``client_version``: the ``clientInfo`` sent with
      ``initialize``; ``experimental_api=False`` does not ask for Codex's experimental API
      (dynamic tools and other experimental fields are then refused by Codex).
    * ``max_pending_approvals_per_room``: approvals waiting in a room at once; one more
      declines the oldest. ``max_session_approved_per_room``: what ``/approve-session``
      remembers per room (the least recently approved goes first);
      ``max_approval_audit_per_room``: decisions kept for ``/permissions``.

    * ``workspace_for_room``: the folder a room's Codex works in (``room_id -> absolute
      path``; default ``./.band-workspaces/<room>``); the adapter's own argument wins.
    * ``client_close_timeout_s``: how long closing a room's app-server may take (None: no
      bound); past it the process group is killed and the leave fails with a TimeoutError.
    * ``turn_settle_timeout_s``: how long a leave or stop lets the room's running turn end
      before cancelling it.
    * ``transport`` must be ``stdio`` (a process per room keeps rooms apart): a shared
      app-server at ``codex_ws_url`` (``CODEX_WS_URL``) is refused, naming that URL.

    ``retention`` must stay disabled (``idle_timeout_s`` unset): see ``RETENTION_REFUSED``.
    """

    transport: str = "stdio"
    retention: RoomRetention = Field(default_factory=RoomRetention)
    reasoning_summary: ReasoningSummary | None = None
    approval_policy: ApprovalPolicy = "never"
    personality: Personality = "pragmatic"
    sandbox: SandboxMode | None = None
    sandbox_policy: dict[str, Any] | None = None
    include_base_instructions: bool = True
    approval_mode: ApprovalMode = ApprovalMode.MANUAL
    approval_text_notifications: bool = True
    session_approval_granularity: Literal["full_command", "binary"] = "full_command"
    turn_timeout_s: PositiveFloat = 180.0
    codex_command: list[str] | None = None
    codex_env: dict[str, str] | None = None
    enable_self_config_tools: bool = False
    additional_dynamic_tools: list[dict[str, Any]] = Field(default_factory=list)
    skill_roots: list[str] = Field(default_factory=list)
    inject_history_on_resume_failure: bool = True
    stream_reasoning_events: bool = False
    stream_commentary_events: bool = False
    stream_plan_events: bool = False
    emit_diff_events: bool = False
    emit_token_usage_events: bool = False
    emit_turn_lifecycle_events: bool = False
    emit_turn_task_markers: bool = False
    experimental_api: bool = True
    client_name: str = "band_codex_adapter"
    client_title: str = "Band Codex Adapter"
    client_version: str = "0.1.0"
    max_pending_approvals_per_room: PositiveInt = 50
    max_approval_audit_per_room: PositiveInt = 100
    max_session_approved_per_room: PositiveInt = 100
    workspace_for_room: WorkspaceResolver | None = Field(default=None, exclude=True)
    codex_ws_url: str = "ws://127.0.0.1:8765"
    client_close_timeout_s: PositiveFloat | None = 10.0

    @model_validator(mode="before")
    @classmethod
    def _environment(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return env_defaults(
            "CODEX_",
            [n for n in cls.model_fields if n not in _NOT_FROM_ENV],
            data,
            aliases=_ENV_ALIASES,
            split=("codex_command",),
            structured=_STRUCTURED,
        )

    @field_validator("codex_command", mode="before")
    @classmethod
    def _split_command(cls, value: Any) -> Any:
        return value.split() if isinstance(value, str) else value

    @field_validator("retention", mode="before")
    @classmethod
    def _retention(cls, value: Any) -> Any:
        return RoomRetention.disabled(value, RETENTION_REFUSED)

    @field_validator("sandbox_policy")
    @classmethod
    def _policy(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else normalize_sandbox_policy(value)

    @field_validator("skill_roots")
    @classmethod
    def _absolute_roots(cls, roots: list[str]) -> list[str]:
        relative = [root for root in roots if not _absolute(root)]
        if relative:
            raise ValueError(f"skill_roots must be absolute paths: {relative}")
        return roots

    @field_validator("additional_dynamic_tools")
    @classmethod
    def _tool_specs(cls, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        checked = []
        for spec in specs:
            name = spec.get("name")
            if not isinstance(name, str) or not name.strip():
                raise ValueError(f"each additional dynamic tool needs a name: {spec!r}")
            schema = spec.get("inputSchema", spec.get("input_schema"))
            checked.append(
                {
                    "type": spec.get("type", "function"),
                    "name": name,
                    "description": str(spec.get("description") or ""),
                    "inputSchema": schema if isinstance(schema, dict) else {"type": "object"},
                }
            )
        return checked

    @property
    def client_info(self) -> dict[str, str]:
        """What ``initialize`` tells Codex about us (``clientInfo``)."""
        return {
            "name": self.client_name,
            "title": self.client_title,
            "version": self.client_version,
        }

    @property
    def thread_sandbox(self) -> str | None:
        """The thread's sandbox mode: fixed by ``sandbox_policy`` when one is set."""
        if self.sandbox_policy is not None:
            return POLICY_MODES[self.sandbox_policy["type"]]
        return self.sandbox
