"""``CrewAIFlowAdapter``: a room router built on a CrewAI ``Flow`` that delegates to peers.

Each message that starts a run (a person's, or a peer's when ``accept_agent_initiated``)
or answers one of the run's delegations kicks off a fresh flow from ``flow_factory`` with
the run as inputs. The flow returns a decision (:data:`FlowDecision`); the adapter carries
it out: a direct answer, delegations (one message mentioning each peer), waiting, a
synthesised final answer once the round is joined, or a failure. Run state is written as
``task`` events (``band.converters.crewai_flow``), so a restarted agent picks runs up.

A peer that has not answered within ``reply_timeout`` (its model failed, it is not
running) counts as failed: the round is joined without it and the flow runs again with
that failure in its inputs, so it is reported, never waited on forever. (A peer's error
events are not visible to other agents, so the timeout is the one signal.)
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, ClassVar, Unpack

from pydantic import ConfigDict

from band.converters.crewai_flow import (
    CrewAIFlowMetadata,
    CrewAIFlowParticipantSnapshot,
    CrewAIFlowSessionState,
    CrewAIFlowStateConverter,
    normalize_participant_key,
)
from band.core.exceptions import BandConfigError
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.integrations.crewai import CrewAIToolContext, build_band_crewai_tools
from band.integrations.crewai.tools import bound_context
from band.runtime.custom_tools import CustomToolDef

from ._flow_decisions import (
    CrewAIFlowAdapterConfig,
    CrewAIFlowTaggedPeerPolicy,
    DelegateDecision,
    DelegateItem,
    DirectResponseDecision,
    FailedDecision,
    FlowDecision,
    SynthesizeDecision,
    WaitingDecision,
    parse_decision,
)
from ._flow_runs import FlowRuns
from .crewai import band_executor, require_crewai

__all__ = [
    "CrewAIFlowAdapter",
    "CrewAIFlowAdapterConfig",
    "CrewAIFlowRuntimeTools",
    "CrewAIFlowTaggedPeerPolicy",
    "DelegateDecision",
    "DelegateItem",
    "DirectResponseDecision",
    "FailedDecision",
    "FlowDecision",
    "SynthesizeDecision",
    "WaitingDecision",
    "get_current_flow_runtime",
]

logger = logging.getLogger("band.adapters.crewai_flow")
_FORBID = ConfigDict(extra="forbid")


@dataclass
class CrewAIFlowRuntimeTools:
    """What a running flow may read and use: ``get_current_flow_runtime()`` returns it."""

    room_id: str
    run_id: str
    agent_name: str
    agent_description: str
    participants: list[CrewAIFlowParticipantSnapshot]
    state: CrewAIFlowSessionState
    tools: AgentToolsProtocol
    _crewai_tools: Callable[[], list[Any]] = field(repr=False, default=list)

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> Any:
        return await self.tools.lookup_peers(page, page_size)

    async def get_participants(self) -> Any:
        return await self.tools.get_participants()

    def create_crewai_tools(self) -> list[Any]:
        """The room's Band tools (and custom tools) for a sub-crew the flow kicks off."""
        return self._crewai_tools()


_runtime: ContextVar[CrewAIFlowRuntimeTools | None] = ContextVar(
    "band_crewai_flow_runtime", default=None
)


def get_current_flow_runtime() -> CrewAIFlowRuntimeTools | None:
    """The running flow's room and tools, or None outside a flow run."""
    return _runtime.get()


def _snapshot(participants: Sequence[dict[str, Any]]) -> list[CrewAIFlowParticipantSnapshot]:
    return [
        CrewAIFlowParticipantSnapshot(
            participant_id=str(p.get("id")),
            handle=p.get("handle"),
            name=p.get("name"),
            type=p.get("type"),
            normalized_key=normalize_participant_key(
                str(p.get("handle") or p.get("name") or p.get("id"))
            ),
        )
        for p in participants
        if p.get("id")
    ]


class CrewAIFlowAdapter(SimpleAdapter[CrewAIFlowSessionState]):
    """Runs one CrewAI Flow execution per inbound message of a run; delegates to peers.

    ``flow_factory`` builds a fresh flow (anything with ``kickoff_async(inputs=...)``) per
    execution; its result must be a decision dict (``{"decision": "delegate", ...}``).
    Turns are not judged: a message that only advances a run owes no reply.
    """

    SUPPORTED_EMIT: ClassVar[frozenset[Emit]] = frozenset({Emit.TOOL_CALLS})
    SUPPORTED_CAPABILITIES: ClassVar[frozenset[Capability]] = frozenset(Capability)

    @property
    def judges_turns(self) -> bool:
        return False

    def __init__(
        self,
        config: CrewAIFlowAdapterConfig | None = None,
        *,
        history_converter: CrewAIFlowStateConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        flow_factory: Callable[[], Any],
        **features: Unpack[FeatureKwargs],
    ) -> None:
        if not callable(flow_factory):
            raise BandConfigError("flow_factory must be callable")
        require_crewai("CrewAIFlowAdapter")  # the flows it runs are CrewAI's
        self.config = config or CrewAIFlowAdapterConfig()
        converter = history_converter or CrewAIFlowStateConverter(
            max_run_age=self.config.max_run_age
        )
        super().__init__(history_converter=converter, **features)
        self.converter = converter
        self._flow_factory = flow_factory
        self._custom_tools = list(additional_tools or [])
        self.metadata_namespace = self.config.metadata_namespace or ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self.runs: FlowRuns | None = None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self._loop = asyncio.get_running_loop()
        agent_id = self.platform.agent_id if self.platform is not None else agent_name
        if not self.metadata_namespace:
            self.metadata_namespace = f"crewai_flow:{agent_id}"
        self.converter.metadata_namespace = self.metadata_namespace
        self.runs = FlowRuns(self.metadata_namespace, agent_id, self.config, self._execute_flow)

    async def on_cleanup(self, room_id: str) -> None:
        if self.runs is not None:
            await self.runs.forget(room_id)

    async def cleanup_all(self) -> None:
        if self.runs is not None:
            await self.runs.close()

    async def on_message(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: CrewAIFlowSessionState,
        participants_msg: str | None,
        contacts_msg: str | None,
        *,
        is_session_bootstrap: bool,
        room_id: str,
    ) -> None:
        if self.runs is None:
            raise BandConfigError("CrewAIFlowAdapter.on_message called before on_started")
        await self.runs.handle(
            msg,
            tools,
            history,
            _snapshot(getattr(tools, "participants", [])),
            {"participants_msg": participants_msg, "contacts_msg": contacts_msg},
            is_session_bootstrap=is_session_bootstrap,
        )

    async def _execute_flow(
        self,
        run: CrewAIFlowMetadata,
        state: CrewAIFlowSessionState,
        tools: AgentToolsProtocol,
        participants: list[CrewAIFlowParticipantSnapshot],
        inputs: dict[str, Any],
    ) -> FlowDecision | str:
        """One flow execution for ``run``: its decision, or the bare text it returned."""
        assert self._loop is not None  # nosec B101 # narrows for mypy: on_started set it
        context = CrewAIToolContext(
            room_id=run.room_id,
            tools=tools,
            loop=self._loop,
            execute=band_executor(tools, self.features, self._custom_tools),
        )
        runtime = CrewAIFlowRuntimeTools(
            room_id=run.room_id,
            run_id=run.run_id,
            agent_name=self.agent_name,
            agent_description=self.agent_description,
            participants=participants,
            state=state,
            tools=tools,
            _crewai_tools=lambda: build_band_crewai_tools(self.features, self._custom_tools),
        )
        flow = self._flow_factory()
        token = _runtime.set(runtime)
        try:
            with bound_context(context):
                result = await flow.kickoff_async(inputs=inputs)
        finally:
            _runtime.reset(token)
        return result if isinstance(result, str) else parse_decision(result)
