"""Agent and session configuration, and ``agent_config.yaml`` loading.

``SessionConfig`` reads every field from an environment variable of the same name
(case-insensitive, no prefix; empty values ignored) unless the field is passed explicitly:
``MAX_MESSAGE_RETRIES=3`` gives ``max_message_retries == 3``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, model_validator

from band.core.types import ConflictPolicy
from band.platform.urls import DEFAULT_REST_URL, DEFAULT_WS_URL

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "AgentConfig",
    "SessionConfig",
    "load_agent_config",
    "resolve_urls",
]


def _env(name: str) -> str | None:
    """Case-insensitive environment lookup; empty values count as unset."""
    value = os.environ.get(name) or os.environ.get(name.upper()) or os.environ.get(name.lower())
    if value is None:
        wanted = name.lower()
        value = next((v for k, v in os.environ.items() if k.lower() == wanted), None)
    return value if value else None


def resolve_urls(ws_url: str | None, rest_url: str | None) -> tuple[str, str]:
    """Explicit URLs win, then ``BAND_WS_URL`` / ``BAND_REST_URL``, then production."""
    return (
        ws_url or _env("BAND_WS_URL") or DEFAULT_WS_URL,
        rest_url or _env("BAND_REST_URL") or DEFAULT_REST_URL,
    )


@dataclass
class AgentConfig:
    """Host-level switches of an ``Agent``."""

    auto_subscribe_existing_rooms: bool = True
    single_instance: bool = True
    conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE


class SessionConfig(BaseModel):
    """Per-room execution tuning; each field may come from the environment."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enable_context_cache: bool = True
    context_cache_ttl_seconds: float = 300.0
    max_context_messages: int = 100
    max_message_retries: int = 1
    enable_context_hydration: bool = True
    idle_resync_seconds: float = 60.0
    idle_resync_max_seconds: float = 120.0
    stopped_resync_seconds: float | None = None
    enable_working_state: bool = True
    working_keep_alive_seconds: float = 3.0
    working_request_timeout_seconds: float = 2.0
    max_working_state_seconds: float | None = None
    max_cycle_seconds: float | None = None
    report_turn_failures_to_room: bool = True

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        values = dict(data) if isinstance(data, dict) else {}
        for name in cls.model_fields:
            if name not in values:
                env_value = _env(name)
                if env_value is not None:
                    values[name] = env_value
        return values

    @model_validator(mode="after")
    def _check_working_timings(self) -> SessionConfig:
        if self.working_keep_alive_seconds >= 5.0:
            raise ValueError("working_keep_alive_seconds must be < 5.0")
        if self.working_request_timeout_seconds >= self.working_keep_alive_seconds:
            raise ValueError("working_request_timeout_seconds must be < working_keep_alive_seconds")
        if self.max_message_retries < 1:
            raise ValueError("max_message_retries must be >= 1")
        return self


def load_agent_config(agent_key: str, *, config_path: str | Path | None = None) -> tuple[str, str]:
    """``(agent_id, api_key)`` for ``agent_key`` from ``agent_config.yaml`` (cwd by default).

    Keyed form ``{key: {agent_id, api_key}}``; when the key is absent and the file has a
    top-level ``agent_id``, the whole file is the agent (flat form).
    """
    path = Path(config_path) if config_path is not None else Path.cwd() / "agent_config.yaml"
    if not path.is_file():
        raise FileNotFoundError(
            f"Config file not found at {path}. Copy agent_config.yaml.example to "
            "agent_config.yaml and configure your agents."
        )
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if not isinstance(data, dict):
            raise TypeError(f"expected a mapping at the top of {path}")
        entry = data.get(agent_key)
        if not entry and "agent_id" in data:
            entry = data
        if not entry:
            raise ValueError(
                f"Agent '{agent_key}' not found in {path}. Please add the agent configuration."
            )
        if not isinstance(entry, dict):
            raise TypeError(f"agent '{agent_key}' must be a mapping")
        missing = [k for k in ("agent_id", "api_key") if not entry.get(k)]
        if missing:
            raise ValueError(
                f"Missing required fields for agent '{agent_key}': {', '.join(missing)}. "
                f"Please create a remote agent on the platform and add the credentials to {path}"
            )
        return str(entry["agent_id"]), str(entry["api_key"])
    except ValueError:
        raise
    except Exception as exc:
        raise RuntimeError(f"Error loading agent config: {exc}") from exc
