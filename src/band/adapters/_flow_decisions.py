"""The CrewAI Flow adapter's policy (``CrewAIFlowAdapterConfig``) and the decisions a flow
returns (``{"decision": "delegate" | "direct_response" | "waiting" | "synthesize" |
"failed", ...}``), validated strictly: an unknown key or kind is a malformed result.
"""

from __future__ import annotations

from datetime import timedelta
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
    model_validator,
)

from band.converters.crewai_flow import (
    CrewAIFlowError,
    CrewAIFlowJoinPolicy,
    CrewAIFlowTextOnlyBehavior,
)
from band.core.adapterconfig import BaseAdapterConfig

__all__ = [
    "CrewAIFlowAdapterConfig",
    "CrewAIFlowTaggedPeerPolicy",
    "DelegateDecision",
    "DelegateItem",
    "DirectResponseDecision",
    "FailedDecision",
    "FlowDecision",
    "SynthesizeDecision",
    "WaitingDecision",
]  # and parse_decision, for the adapter alone

_FORBID = ConfigDict(extra="forbid")


class CrewAIFlowTaggedPeerPolicy(StrEnum):
    """Whether peers @-tagged in the request must be delegated to before a final answer."""

    REQUIRE_DELEGATION_BEFORE_FINAL = "require_delegation_before_final"
    OFF = "off"


class CrewAIFlowAdapterConfig(BaseAdapterConfig):
    """Orchestration policy of a ``CrewAIFlowAdapter`` (frozen; unknown fields rejected).

    ``metadata_namespace`` None means ``crewai_flow:<agent_id>``. ``sequential_chains``
    maps an upstream peer to a downstream one: once the upstream replied, no final answer
    until the downstream was delegated to. ``reply_timeout`` (ours) bounds the wait for a
    peer's reply.
    """

    join_policy: CrewAIFlowJoinPolicy = CrewAIFlowJoinPolicy.ALL
    metadata_namespace: Annotated[str, Field(min_length=1)] | None = None
    max_delegation_rounds: Annotated[StrictInt, Field(ge=1, le=20)] = 4
    max_run_age: timedelta = Field(default=timedelta(days=7), gt=timedelta(0))
    text_only_behavior: CrewAIFlowTextOnlyBehavior = CrewAIFlowTextOnlyBehavior.ERROR_EVENT
    tagged_peer_policy: CrewAIFlowTaggedPeerPolicy = (
        CrewAIFlowTaggedPeerPolicy.REQUIRE_DELEGATION_BEFORE_FINAL
    )
    sequential_chains: dict[str, str] = Field(default_factory=dict)
    accept_agent_initiated: StrictBool = False
    reply_timeout: timedelta = Field(default=timedelta(minutes=5), gt=timedelta(0))


class DelegateItem(BaseModel):
    model_config = _FORBID

    delegation_id: str
    target: str
    content: str
    mentions: list[str]


class _Decision(BaseModel):
    """What every decision has: its kind (a literal in each), and nothing unknown."""

    model_config = _FORBID

    decision: str


class _Answer(_Decision):
    """A decision that answers in the room: the text and whom it mentions."""

    content: str
    mentions: list[str] = Field(default_factory=list)


class DirectResponseDecision(_Answer):
    decision: Literal["direct_response"]


class DelegateDecision(_Decision):
    decision: Literal["delegate"]
    delegations: list[DelegateItem] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> DelegateDecision:
        ids = [item.delegation_id for item in self.delegations]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"delegation ids repeat: {', '.join(repeated)}")
        return self


class WaitingDecision(_Decision):
    decision: Literal["waiting"]
    reason: str


class SynthesizeDecision(_Answer):
    decision: Literal["synthesize"]


class FailedDecision(_Decision):
    decision: Literal["failed"]
    error: CrewAIFlowError


FlowDecision = Annotated[
    DirectResponseDecision
    | DelegateDecision
    | WaitingDecision
    | SynthesizeDecision
    | FailedDecision,
    Field(discriminator="decision"),
]


class _Result(BaseModel):
    decision: FlowDecision


def parse_decision(result: Any) -> FlowDecision:
    """A flow's result as a decision; ValueError when it is not one."""
    if isinstance(result, BaseModel):
        result = result.model_dump()
    try:
        return _Result.model_validate({"decision": result}).decision
    except ValidationError as exc:
        raise ValueError(f"the flow returned no valid decision: {exc.errors()[:2]}") from exc
