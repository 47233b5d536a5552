"""The CrewAI Flow adapter's durable state: one record per run, kept in ``task`` events.

Every state change of a run is a ``task`` event whose metadata holds the whole run
(:class:`CrewAIFlowMetadata`) under the adapter's namespace (``crewai_flow:<agent_id>``).
:class:`CrewAIFlowStateConverter` rebuilds the room's :class:`CrewAIFlowSessionState` from
history: the latest record of each run (runs older than ``max_run_age`` dropped), plus
the room's conversation as role/content lines for the flow to read.
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .crewai import CrewAIHistoryConverter

__all__ = [
    "CrewAIFlowDelegationState",
    "CrewAIFlowDelegationStatus",
    "CrewAIFlowError",
    "CrewAIFlowJoinPolicy",
    "CrewAIFlowMetadata",
    "CrewAIFlowParticipantSnapshot",
    "CrewAIFlowRunStatus",
    "CrewAIFlowSessionState",
    "CrewAIFlowStateConverter",
    "CrewAIFlowTextOnlyBehavior",
    "normalize_participant_key",
]

logger = logging.getLogger("band.converters.crewai_flow")
_FORBID = ConfigDict(extra="forbid")


class CrewAIFlowRunStatus(StrEnum):
    """Where a run stands; the last three are terminal."""

    OBSERVED = "observed"
    DELEGATED_PENDING = "delegated_pending"
    WAITING = "waiting"
    FINALIZED = "finalized"
    FAILED = "failed"
    INDETERMINATE = "indeterminate"


TERMINAL_STATUSES = frozenset(
    {CrewAIFlowRunStatus.FINALIZED, CrewAIFlowRunStatus.FAILED, CrewAIFlowRunStatus.INDETERMINATE}
)


class CrewAIFlowDelegationStatus(StrEnum):
    PENDING = "pending"
    REPLIED = "replied"
    FAILED = "failed"


class CrewAIFlowJoinPolicy(StrEnum):
    """When a delegation round is answered: every peer replied or failed, or the first."""

    ALL = "all"
    FIRST = "first"


class CrewAIFlowTextOnlyBehavior(StrEnum):
    """What bare text from a flow (not a decision) does: an error event, or a reply."""

    ERROR_EVENT = "error_event"
    FALLBACK_SEND = "fallback_send"


def normalize_participant_key(value: str) -> str:
    """``@Alice Smith`` -> ``alice smith``: how handles, names and tags are compared."""
    return re.sub(r"\s+", " ", value.strip().lstrip("@").strip()).lower()


class CrewAIFlowParticipantSnapshot(BaseModel):
    model_config = _FORBID

    participant_id: str
    handle: str | None = None
    name: str | None = None
    type: str | None = None
    normalized_key: str


class CrewAIFlowError(BaseModel):
    model_config = _FORBID

    code: str
    message: str


class CrewAIFlowDelegationState(BaseModel):
    """One request to a peer and, once it came, the peer's reply (or why none will)."""

    model_config = _FORBID

    delegation_id: str
    target: CrewAIFlowParticipantSnapshot
    content: str
    status: CrewAIFlowDelegationStatus = CrewAIFlowDelegationStatus.PENDING
    delegation_message_id: str | None = None
    delegated_at: str | None = None
    reply_message_id: str | None = None
    reply_content: str | None = None
    error: CrewAIFlowError | None = None


class CrewAIFlowMetadata(BaseModel):
    """One run, as written into a ``task`` event's metadata (schema version 1)."""

    model_config = _FORBID

    schema_version: Literal[1] = 1
    room_id: str
    run_id: str
    parent_message_id: str
    requester_id: str
    requester_name: str | None = None
    status: CrewAIFlowRunStatus
    join_policy: CrewAIFlowJoinPolicy = CrewAIFlowJoinPolicy.ALL
    delegations: list[CrewAIFlowDelegationState] = Field(default_factory=list)
    tagged_peer_keys: list[str] = Field(default_factory=list)
    delegation_rounds: int = 0
    final_message_id: str | None = None
    error: CrewAIFlowError | None = None
    updated_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())

    @property
    def pending(self) -> list[CrewAIFlowDelegationState]:
        return [d for d in self.delegations if d.status == CrewAIFlowDelegationStatus.PENDING]

    @property
    def joined(self) -> bool:
        """Whether the round is answered under the join policy (nothing delegated: yes)."""
        if not self.delegations:
            return True
        if self.join_policy == CrewAIFlowJoinPolicy.FIRST:
            return any(d.status != CrewAIFlowDelegationStatus.PENDING for d in self.delegations)
        return not self.pending


class CrewAIFlowSessionState(BaseModel):
    """A room's runs by id, and its conversation (``{"role", "content"}`` lines)."""

    runs: dict[str, CrewAIFlowMetadata] = Field(default_factory=dict)
    transcript: list[dict[str, str]] = Field(default_factory=list)

    def is_terminal(self, run_id: str) -> bool:
        run = self.runs.get(run_id)
        return run is not None and run.status in TERMINAL_STATUSES


class CrewAIFlowStateConverter:
    """Rebuilds a room's :class:`CrewAIFlowSessionState` from its history.

    ``metadata_namespace`` is set by the adapter at start-up (``crewai_flow:<agent_id>``).
    """

    def __init__(
        self,
        *,
        metadata_namespace: str = "",
        max_run_age: timedelta = timedelta(days=7),
        agent_name: str = "",
    ) -> None:
        self.metadata_namespace = metadata_namespace
        self.max_run_age = max_run_age
        self._texts = CrewAIHistoryConverter(agent_name)

    def set_agent_name(self, name: str) -> None:
        self._texts.set_agent_name(name)

    def convert(self, raw: list[dict[str, Any]]) -> CrewAIFlowSessionState:
        state = CrewAIFlowSessionState(
            transcript=[
                {"role": m["role"], "content": m["content"]} for m in self._texts.convert(raw)
            ]
        )
        oldest = datetime.now(UTC) - self.max_run_age
        for item in raw:
            metadata = item.get("metadata")
            if item.get("message_type") != "task" or not isinstance(metadata, dict):
                continue
            payload = metadata.get(self.metadata_namespace)
            if not isinstance(payload, dict):
                continue
            try:
                run = CrewAIFlowMetadata.model_validate(payload)
            except ValidationError as exc:
                logger.warning("Ignoring a malformed CrewAI Flow record: %s", exc.errors()[:1])
                continue
            state.runs[run.run_id] = run  # history is oldest first: the last record wins
        state.runs = {
            run_id: run
            for run_id, run in state.runs.items()
            if _parse_time(run.updated_at) >= oldest
        }
        return state


def _parse_time(value: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
