"""``CrewAIFlowAdapter``: a room router built on a CrewAI ``Flow`` that delegates to peers.

How it works: docs/internals/sdk.md, "CrewAI Flow adapter".

Each run's decision is carried out by the adapter; its state is kept as ``task`` events and
its visible writes are never repeated or dropped.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Unpack

from band.converters.crewai_flow import (
    CrewAIFlowMetadata,
    CrewAIFlowParticipantSnapshot,
    CrewAIFlowSessionState,
    CrewAIFlowStateConverter,
)
from band.core.exceptions import BandConfigError
from band.core.protocols import AgentToolsProtocol
from band.core.simple_adapter import SimpleAdapter
from band.core.types import Capability, Emit, FeatureKwargs, PlatformMessage
from band.integrations.crewai.flow import kickoff_flow
from band.integrations.crewai.turn import ToolTurn, settle_tool_turns, tool_turn
from band.runtime.custom_tools import CustomToolDef, get_custom_tool_name

from . import _flow_decisions
from ._flow_decisions import *  # noqa: F403  (its __all__, added below)
from ._flow_decisions import CrewAIFlowAdapterConfig, FlowDecision, parse_decision
from ._flow_effects import SideEffectExecutor
from ._flow_runs import FlowRuns
from ._flow_runtime import (
    CrewAIFlowRuntimeTools,
    CrewAIFlowSubCrewReporter,
    flow_runtime,
    get_current_flow_runtime,
    snapshot,
)
from ._flow_sources import (
    CrewAIFlowStateSource,
    HistoryCrewAIFlowStateSource,
    RestCrewAIFlowStateSource,
)
from .crewai import require_crewai

__all__ = [
    "CrewAIFlowAdapter",
    "CrewAIFlowRuntimeTools",
    "CrewAIFlowSessionState",
    "CrewAIFlowStateConverter",
    "CrewAIFlowStateSource",
    "CrewAIFlowSubCrewReporter",
    "HistoryCrewAIFlowStateSource",
    "RestCrewAIFlowStateSource",
    "SideEffectExecutor",
    "get_current_flow_runtime",
]
__all__ += _flow_decisions.__all__

logger = logging.getLogger("band.adapters.crewai_flow")


class CrewAIFlowAdapter(SimpleAdapter[CrewAIFlowSessionState]):
    """Runs one CrewAI Flow execution per inbound message of a run; delegates to peers.

    ``flow_factory`` builds a fresh flow (anything with ``kickoff_async(inputs=...)``) per
    execution; its result must be a decision dict (``{"decision": "delegate", ...}``).
    ``state_source`` is where a room's runs are read from when it starts. Turns are not
    judged: a message that only advances a run owes no reply.
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
        state_source: CrewAIFlowStateSource | None = None,
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
        self.state_source: CrewAIFlowStateSource = state_source or RestCrewAIFlowStateSource()
        self._flow_factory = flow_factory
        self._custom_tools = {get_custom_tool_name(t[0]): t for t in additional_tools or []}
        self.metadata_namespace = self.config.metadata_namespace or ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tool_turns: dict[str, set[ToolTurn]] = {}
        self.runs: FlowRuns | None = None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        self._loop = asyncio.get_running_loop()
        agent_id = self.platform.agent_id if self.platform is not None else agent_name
        if not self.metadata_namespace:
            self.metadata_namespace = f"crewai_flow:{agent_id}"
        self.converter.metadata_namespace = self.metadata_namespace
        self.runs = FlowRuns(
            self.metadata_namespace,
            agent_id,
            self.config,
            self._execute_flow,
            self.state_source,
            self.converter,
        )

    async def on_cleanup(self, room_id: str) -> None:
        await settle_tool_turns(self._tool_turns, room_id=room_id)
        if self.runs is not None:
            await self.runs.forget(room_id)

    async def cleanup_all(self) -> None:
        await settle_tool_turns(self._tool_turns)
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
            snapshot(getattr(tools, "participants", [])),
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
        executor: SideEffectExecutor,
    ) -> FlowDecision | str:
        """One flow execution for ``run``: its decision, or the bare text it returned."""
        async with tool_turn(self._tool_turns, run.room_id, tools) as turn:
            runtime = CrewAIFlowRuntimeTools(
                room_id=run.room_id,
                agent_name=self.agent_name,
                agent_description=self.agent_description,
                participants=participants,
                tools=tools,
                executor=executor,
                run_id=run.run_id,
                state=state,
                features=self.features,
                custom_tools=self._custom_tools,
                fallback_loop=self._loop,
                tool_turn=turn,
            )
            token = flow_runtime.set(runtime)
            try:
                result = await turn.execute(lambda: kickoff_flow(self._flow_factory(), inputs))
            finally:
                flow_runtime.reset(token)
        return result if isinstance(result, str) else parse_decision(result)
