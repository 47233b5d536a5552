"""Agent and session configuration (``AgentConfig``, ``SessionConfig``).

``SessionConfig`` reads every field from an environment variable of the same name
(case-insensitive, no prefix; empty values ignored) unless the field is passed explicitly:
``MAX_MESSAGE_RETRIES=3`` gives ``max_message_retries == 3``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Self

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from band.config.loader import load_agent_config
from band.config.settings import DEFAULT_REST_URL, DEFAULT_WS_URL, resolve_urls
from band.core.types import ConflictPolicy

__all__ = [
    "DEFAULT_REST_URL",
    "DEFAULT_WS_URL",
    "AgentConfig",
    "SessionConfig",
    "load_agent_config",
    "resolve_urls",
]

# The platform clears an agent's working state this long after its last report.
PLATFORM_WORKING_STATE_TTL_SECONDS = 10.0
PositiveSeconds = Annotated[float, Field(gt=0, allow_inf_nan=False)]


@dataclass
class AgentConfig:
    """Host-level switches of an ``Agent``."""

    auto_subscribe_existing_rooms: bool = True
    single_instance: bool = True
    conflict_policy: ConflictPolicy = ConflictPolicy.SUPERSEDE


class SessionConfig(BaseSettings):
    """Per-room execution tuning; each field not passed comes from the environment."""

    model_config = SettingsConfigDict(extra="ignore", case_sensitive=False, env_ignore_empty=True)

    enable_context_cache: bool = True
    context_cache_ttl_seconds: int = 300
    max_context_messages: int = 100
    max_message_retries: int = Field(1, ge=1)
    enable_context_hydration: bool = True
    idle_resync_seconds: PositiveSeconds = 60.0
    enable_working_state: bool = True
    working_keep_alive_seconds: float = 3.0
    working_request_timeout_seconds: int = 2
    max_working_state_seconds: float | None = None
    max_cycle_seconds: float | None = None
    report_turn_failures_to_room: bool = True
    idle_resync_max_seconds: PositiveSeconds = 120.0
    stopped_resync_seconds: PositiveSeconds | None = None

    @model_validator(mode="after")
    def validate_timing(self) -> Self:
        """Working-state reports must land inside the platform's TTL, one at a time."""
        if self.enable_working_state:
            half = PLATFORM_WORKING_STATE_TTL_SECONDS / 2
            keep_alive, timeout = (
                self.working_keep_alive_seconds,
                self.working_request_timeout_seconds,
            )
            if not 0 < keep_alive < half:
                raise ValueError(f"working_keep_alive_seconds must be > 0 and < {half}")
            if not 0 < timeout < keep_alive:
                raise ValueError(
                    "working_request_timeout_seconds must be > 0 and < working_keep_alive_seconds"
                )
            _positive("max_working_state_seconds", self.max_working_state_seconds)
        _positive("max_cycle_seconds", self.max_cycle_seconds)
        return self


def _positive(name: str, value: float | None) -> None:
    if value is not None and not value > 0:
        raise ValueError(f"{name} must be > 0 when set (got {value})")
