"""The CrewAI Flow adapter's run state as models: statuses, stages, delegations, side effects,
a run (``CrewAIFlowMetadata``) and a room's runs (``CrewAIFlowSessionState``).

``band.converters.crewai_flow`` re-exports them and folds ``task`` events into them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# TERMINAL_STATUSES is for the converter (band.converters.crewai_flow), not exported.
__all__ = [
    "CrewAIFlowAmbiguousIdentityError",
    "CrewAIFlowBufferedSynthesis",
    "CrewAIFlowDelegationState",
    "CrewAIFlowDelegationStatus",
    "CrewAIFlowError",
    "CrewAIFlowJoinPolicy",
    "CrewAIFlowMetadata",
    "CrewAIFlowParticipantSnapshot",
    "CrewAIFlowRunStatus",
    "CrewAIFlowSequentialChainState",
    "CrewAIFlowSessionState",
    "CrewAIFlowSideEffectState",
    "CrewAIFlowStage",
    "CrewAIFlowTextOnlyBehavior",
]

_FORBID = ConfigDict(extra="forbid")


class CrewAIFlowRunStatus(StrEnum):
    """Where a run stands; finalized, failed and indeterminate are terminal."""

    OBSERVED = "observed"
    SIDE_EFFECT_RESERVED = "side_effect_reserved"
    DELEGATED_PENDING = "delegated_pending"
    WAITING = "waiting"
    REPLY_RECORDED = "reply_recorded"
    REPLY_AMBIGUOUS = "reply_ambiguous"
    FINALIZED = "finalized"
    FAILED = "failed"
    INDETERMINATE = "indeterminate"


class CrewAIFlowStage(StrEnum):
    """The orchestration step a run is at."""

    INITIAL = "initial"
    DELEGATED = "delegated"
    WAITING_FOR_REPLIES = "waiting_for_replies"
    DOWNSTREAM_REQUIRED = "downstream_required"
    SYNTHESIZING = "synthesizing"
    DONE = "done"
    FAILED = "failed"
    INDETERMINATE = "indeterminate"


class CrewAIFlowDelegationStatus(StrEnum):
    """A delegation: reserved (not known sent), pending (sent), then its outcome."""

    RESERVED = "reserved"
    PENDING = "pending"
    REPLIED = "replied"
    AMBIGUOUS = "ambiguous"
    FAILED = "failed"
    INDETERMINATE = "indeterminate"


class CrewAIFlowJoinPolicy(StrEnum):
    """When a delegation round is answered: every peer replied or failed, or the first."""

    ALL = "all"
    FIRST = "first"


class CrewAIFlowTextOnlyBehavior(StrEnum):
    """What bare text from a flow (not a decision) does: an error event, or a reply."""

    ERROR_EVENT = "error_event"
    FALLBACK_SEND = "fallback_send"


TERMINAL_STATUSES = frozenset(
    {CrewAIFlowRunStatus.FINALIZED, CrewAIFlowRunStatus.FAILED, CrewAIFlowRunStatus.INDETERMINATE}
)


class CrewAIFlowAmbiguousIdentityError(Exception):
    """Two participants of the room share the normalised key ``key``."""

    def __init__(self, key: str, participant_ids: list[str]) -> None:
        self.key = key
        self.participant_ids = list(participant_ids)
        super().__init__(
            f"the participant key {key!r} names several participants: {participant_ids}"
        )


class CrewAIFlowParticipantSnapshot(BaseModel):
    model_config = _FORBID

    participant_id: str
    handle: str | None = None
    normalized_key: str
    name: str | None = None
    type: str | None = None


class CrewAIFlowError(BaseModel):
    model_config = _FORBID

    code: str
    message: str


class CrewAIFlowDelegationState(BaseModel):
    """One request to a peer: reserved, sent (its message id), then the peer's reply.

    ``content``, ``delegated_at``, ``reply_content`` and ``error`` are ours: what was asked,
    when it was sent (the reply timeout counts from it), what the peer said, why it failed.
    """

    model_config = _FORBID

    delegation_id: str
    target: CrewAIFlowParticipantSnapshot
    status: CrewAIFlowDelegationStatus = CrewAIFlowDelegationStatus.RESERVED
    side_effect_key: str
    reserved_event_id: str | None = None
    delegation_message_id: str | None = None
    sent_event_id: str | None = None
    reply_message_id: str | None = None
    content: str = ""
    delegated_at: str | None = None
    reply_content: str | None = None
    error: CrewAIFlowError | None = None


class CrewAIFlowSequentialChainState(BaseModel):
    model_config = _FORBID

    upstream_key: str
    downstream_key: str
    status: Literal["not_started", "upstream_replied", "downstream_delegated", "complete"] = (
        "not_started"
    )


class CrewAIFlowBufferedSynthesis(BaseModel):
    model_config = _FORBID

    source_message_id: str
    content: str


class CrewAIFlowSideEffectState(BaseModel):
    """A visible write other than a delegation or the final answer (a sub-crew's post)."""

    model_config = _FORBID

    side_effect_key: str
    reserved_event_id: str | None = None
    message_id: str | None = None
    sent_event_id: str | None = None
    content: str | None = None


class CrewAIFlowMetadata(BaseModel):
    """One run as written into a ``task`` event's metadata (schema version 1).

    ``requester_id``, ``requester_name`` and ``updated_at`` are ours: whom the final answer
    mentions, and when the run last changed.
    """

    model_config = _FORBID

    schema_version: Literal[1] = 1
    room_id: str
    run_id: str
    parent_message_id: str
    status: CrewAIFlowRunStatus
    stage: CrewAIFlowStage
    join_policy: CrewAIFlowJoinPolicy = CrewAIFlowJoinPolicy.ALL
    text_only_behavior: CrewAIFlowTextOnlyBehavior = CrewAIFlowTextOnlyBehavior.ERROR_EVENT
    delegations: list[CrewAIFlowDelegationState] = Field(default_factory=list)
    sequential_chains: list[CrewAIFlowSequentialChainState] = Field(default_factory=list)
    buffered_syntheses: list[CrewAIFlowBufferedSynthesis] = Field(default_factory=list)
    side_effects: list[CrewAIFlowSideEffectState] = Field(default_factory=list)
    tagged_peer_keys: list[str] = Field(default_factory=list)
    delegation_rounds: int = 0
    final_side_effect_key: str | None = None
    final_reserved_event_id: str | None = None
    final_message_id: str | None = None
    final_sent_event_id: str | None = None
    error: CrewAIFlowError | None = None
    requester_id: str | None = None
    requester_name: str | None = None
    final_content: str | None = None
    updated_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())

    @property
    def pending(self) -> list[CrewAIFlowDelegationState]:
        return [d for d in self.delegations if d.status == CrewAIFlowDelegationStatus.PENDING]

    @property
    def joined(self) -> bool:
        """Whether the round is answered under the join policy (nothing delegated: yes)."""
        if not self.delegations:
            return True
        open_ = (CrewAIFlowDelegationStatus.PENDING, CrewAIFlowDelegationStatus.RESERVED)
        if self.join_policy == CrewAIFlowJoinPolicy.FIRST:
            return any(d.status not in open_ for d in self.delegations)
        return all(d.status not in open_ for d in self.delegations)


class CrewAIFlowSessionState(BaseModel):
    """A room's runs by id; ``transcript`` (ours) is its conversation as role/content lines."""

    model_config = _FORBID

    runs: dict[str, CrewAIFlowMetadata] = Field(default_factory=dict)
    transcript: list[dict[str, str]] = Field(default_factory=list)

    def is_terminal(self, run_id: str) -> bool:
        run = self.runs.get(run_id)
        return run is not None and run.status in TERMINAL_STATUSES

    def active_runs(self) -> list[CrewAIFlowMetadata]:
        return [run for run in self.runs.values() if run.status not in TERMINAL_STATUSES]
