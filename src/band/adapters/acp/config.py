"""``ACPClientAdapterConfig``: which ACP agent to start per room, and how turns behave."""

from __future__ import annotations

from typing import Any

from pydantic import Field, PositiveFloat, field_validator, model_validator

from band.adapters._coding.approvals import ApprovalMode
from band.adapters._coding.config import CodingAgentConfig
from band.adapters._coding.retention import RoomRetention

__all__ = ["ACPClientAdapterConfig"]

RETENTION_REFUSED = (
    "ACP rooms cannot be suspended when idle: a prompt's end and session/load do not prove "
    "the agent is idle, and stopping it could cancel its work."
)


class ACPClientAdapterConfig(CodingAgentConfig):
    """Settings of an ``ACPClientAdapter`` (frozen, unknown fields rejected).

    * ``command``: the agent's argv (a string is one argv element); it runs over stdio,
      one process per room, in the room's workspace under ``cwd`` (default
      ``./.band-workspaces``), with ``env`` added to the environment.
    * ``inject_band_tools``: offer Band's room tools as the loopback MCP server ``band``;
      ``mcp_servers`` are passed to every session as well (ACP ``McpServer`` objects).
    * ``auth_method``: an ``authenticate`` method id to call after ``initialize``.
    * ``turn_timeout_s`` / ``turn_settle_timeout_s``: how long a prompt may run, and how long
      its cancel may then take before the room's agent process is replaced.
    * ``model`` / ``reasoning_effort``: chosen from each new or restored session's config
      options (its ``model`` and ``thought_level`` selects); a value the session does not
      offer fails the turn with the choices. Not combinable with ``resolve_session_config``.
    * ``approval_mode``: how permission requests are decided without a
      ``resolve_permission`` callback (``auto_accept`` picks the agent's allow option).
    * ``retention``: ``transition_timeout_s`` bounds each agent start (default 30 s); idle
      suspension (``idle_timeout_s``) is not offered and is refused.
    """

    command: tuple[str, ...]
    retention: RoomRetention = Field(default_factory=lambda: RoomRetention(transition_timeout_s=30))
    env: dict[str, str] | None = None
    mcp_servers: tuple[dict[str, Any], ...] = ()
    inject_band_tools: bool = True
    auth_method: str | None = None
    use_unstable_protocol: bool = False
    turn_timeout_s: PositiveFloat = 300.0
    approval_mode: ApprovalMode = ApprovalMode.AUTO_ACCEPT

    @model_validator(mode="before")
    @classmethod
    def _stdio_only(cls, data: Any) -> Any:
        if isinstance(data, dict) and ({"host", "port"} & set(data)):
            raise ValueError("TCP ACP transport cannot guarantee room process isolation")
        return data

    @field_validator("retention", mode="before")
    @classmethod
    def _retention(cls, value: Any) -> Any:
        if value is None:
            return RoomRetention(transition_timeout_s=30)
        return RoomRetention.disabled(value, RETENTION_REFUSED)

    @field_validator("command", mode="before")
    @classmethod
    def _argv(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = (value,) if value.strip() else ()
        if not value:
            raise ValueError("ACP stdio transport requires a command")
        return value
