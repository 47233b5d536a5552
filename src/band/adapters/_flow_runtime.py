"""What a running CrewAI Flow may use: ``get_current_flow_runtime()`` and its tools.

:class:`CrewAIFlowRuntimeTools` is read-only but for two doors: ``ensure_participant`` (add
a peer before delegating to it) and ``create_crewai_tools`` (Band tools for a sub-crew the
flow kicks off). A sub-crew's ``band_send_message`` goes through
:class:`CrewAIFlowSubCrewReporter`, under the run's reserve, send, confirm, so a retried turn
does not post a sub-crew's message twice. Custom tools are called through ``tools``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any
from uuid import UUID

from band.converters.crewai_flow import (
    CrewAIFlowParticipantSnapshot,
    CrewAIFlowRunStatus,
    CrewAIFlowSessionState,
    CrewAIFlowSideEffectState,
    CrewAIFlowStage,
    normalize_participant_key,
)
from band.core.exceptions import BandToolError
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures, Capability
from band.integrations.crewai.reporting import EmitToolCallsReporter, NoopReporter
from band.integrations.crewai.turn import ToolTurn
from band.runtime.custom_tools import CustomToolDef

from ._flow_effects import SideEffectExecutor
from ._tool_events import run_custom_tool

__all__ = [
    "CrewAIFlowCustomTools",
    "CrewAIFlowRuntimeTools",
    "CrewAIFlowSubCrewReporter",
    "flow_runtime",
    "get_current_flow_runtime",
    "snapshot",
]

logger = logging.getLogger("band.adapters.crewai_flow")


def snapshot(participants: Any) -> list[CrewAIFlowParticipantSnapshot]:
    """The room's participants (``{"id", "handle", "name", "type"}`` dicts) as snapshots."""
    found = []
    for p in participants if isinstance(participants, list) else []:
        if not isinstance(p, dict) or not p.get("id"):
            continue
        label = str(p.get("handle") or p.get("name") or p["id"])
        found.append(
            CrewAIFlowParticipantSnapshot(
                participant_id=str(p["id"]),
                handle=p.get("handle"),
                name=p.get("name"),
                type=p.get("type"),
                normalized_key=normalize_participant_key(label),
            )
        )
    return found


class CrewAIFlowSubCrewReporter(NoopReporter):
    """A sub-crew's reporter: its posts go out under reserve, send, confirm; no narration.

    Each post of an execution gets the next key (``<run>:subcrew:<n>``); a retried turn's
    crew makes the same posts in the same order, so one already confirmed is skipped and
    one reserved is settled (found in the room, or sent).
    """

    def __init__(
        self, *, executor: SideEffectExecutor, run_id: str, state: CrewAIFlowSessionState
    ) -> None:
        self._executor = executor
        self._run_id = run_id
        self._state = state

    async def execute_send_message(
        self, tools: AgentToolsProtocol, content: str, mentions: list[str]
    ) -> None:
        executor = self._executor
        key = executor.next_subcrew_key()
        run = self._state.runs[self._run_id]
        effect = next((e for e in run.side_effects if e.side_effect_key == key), None)
        if effect is not None and effect.message_id:
            logger.debug("Sub-crew post %s was sent already", key)
            return
        since: str | None = run.updated_at
        if effect is None:
            effect = CrewAIFlowSideEffectState(side_effect_key=key, content=content)
            run.side_effects.append(effect)
            effect.reserved_event_id = await executor.record(
                CrewAIFlowRunStatus.SIDE_EFFECT_RESERVED,
                CrewAIFlowStage.DELEGATED,
                f"reserve:{key}",
            )
            since = None
        message_id = await executor.post(
            key, effect.content or content, mentions, reserved_at=since
        )
        if executor.side_effect_aborted:
            raise BandToolError(f"could not tell whether the sub-crew post {key} was sent")
        effect.message_id = message_id
        status = run.status
        if status == CrewAIFlowRunStatus.SIDE_EFFECT_RESERVED:
            status = CrewAIFlowRunStatus.WAITING
        effect.sent_event_id = await executor.record(
            status, CrewAIFlowStage.WAITING_FOR_REPLIES, f"subcrew_sent:{key}", retry_attempts=2
        )


class CrewAIFlowCustomTools:
    """The adapter's custom tools, callable by name (``await runtime.tools.my_tool(x=1)``)."""

    def __init__(
        self,
        *,
        custom_tools: Mapping[str, CustomToolDef],
        tools: AgentToolsProtocol,
        features: AdapterFeatures,
        tool_turn: ToolTurn | None = None,
    ) -> None:
        self._defs = dict(custom_tools)
        self._tools = tools
        self._reporter = EmitToolCallsReporter(features)
        self._turn = tool_turn

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._defs))

    def __getattr__(self, name: str) -> Callable[..., Awaitable[Any]]:
        if name.startswith("_") or name not in self._defs:
            raise AttributeError(name)

        async def call(**arguments: Any) -> Any:
            return await self.call_tool(name, arguments)

        return call

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        """Run custom tool ``name`` (reported, its turn effect recorded); its output."""
        if arguments is not None and kwargs:
            raise ValueError("pass the arguments as a mapping or as keywords, not both")
        definition = self._defs.get(name)
        if definition is None:
            raise ValueError(f"Unknown custom tool: {name}")
        args = dict(arguments or kwargs)

        async def run() -> Any:
            await self._reporter.report_call(self._tools, name, args)
            output, is_error = await run_custom_tool(definition, args, self._tools.turn)
            await self._reporter.report_result(self._tools, name, output, is_error=is_error)
            if is_error:
                raise BandToolError(output)
            return output

        return await (run() if self._turn is None else self._turn.run_tool(run))


class CrewAIFlowRuntimeTools:
    """The running flow's room, run and tools (``get_current_flow_runtime()``)."""

    def __init__(
        self,
        *,
        room_id: str,
        agent_name: str,
        agent_description: str,
        participants: list[CrewAIFlowParticipantSnapshot],
        tools: AgentToolsProtocol,
        executor: SideEffectExecutor,
        run_id: str,
        state: CrewAIFlowSessionState,
        features: AdapterFeatures,
        custom_tools: Mapping[str, CustomToolDef],
        fallback_loop: asyncio.AbstractEventLoop | None,
        tool_turn: ToolTurn | None = None,
    ) -> None:
        self.room_id = room_id
        self.agent_name = agent_name
        self.agent_description = agent_description
        self._participants = participants
        self._tools = tools
        self._executor = executor
        self.run_id = run_id
        self.state = state
        self._features = features
        self._custom = dict(custom_tools)
        self._loop = fallback_loop
        self._turn = tool_turn
        self.tools = CrewAIFlowCustomTools(
            custom_tools=self._custom, tools=tools, features=features, tool_turn=tool_turn
        )

    @property
    def participants(self) -> list[CrewAIFlowParticipantSnapshot]:
        return list(self._participants)

    async def call_tool(
        self, name: str, arguments: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        return await self.tools.call_tool(name, arguments, **kwargs)

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> Any:
        return await self._tools.lookup_peers(page=page, page_size=page_size)

    async def get_participants(self) -> Any:
        result = await self._tools.get_participants()
        self._refresh()
        return result

    async def ensure_participant(
        self, participant_id: str, role: str = "member"
    ) -> CrewAIFlowParticipantSnapshot:
        """Add a peer (by id) to the room, so this execution can delegate to it."""
        try:
            peer_id = str(UUID(str(participant_id).strip()))
        except ValueError:
            raise ValueError("participant_id must be a participant's UUID") from None
        if not isinstance(role, str) or not role.strip():
            raise ValueError("role must be a non-empty string")
        await self._tools.add_participant(peer_id, role.strip())
        self._refresh()
        found = next((p for p in self._participants if p.participant_id == peer_id), None)
        if found is None:
            await self._tools.get_participants()
            self._refresh()
            found = next((p for p in self._participants if p.participant_id == peer_id), None)
        if found is None:
            raise ValueError(f"participant {peer_id} was added but is not in the room")
        return found

    def _refresh(self) -> None:
        raw = getattr(self._tools, "participants", None)
        self._participants[:] = snapshot(raw() if callable(raw) else raw)

    def create_crewai_tools(
        self,
        *,
        capabilities: frozenset[Capability] | None = None,
        custom_tools: list[Any] | None = None,
    ) -> list[Any]:
        """Band tools for a sub-crew of this run; its posts go under reserve, send, confirm."""
        from band.integrations.crewai.reporting import CrewAIToolContext
        from band.integrations.crewai.tools import build_band_crewai_tools

        base = self._features
        features = AdapterFeatures(
            capabilities=base.capabilities if capabilities is None else capabilities,
            emit=base.emit,
            include_tools=base.include_tools,
            exclude_tools=base.exclude_tools,
            include_categories=base.include_categories,
        )
        context = CrewAIToolContext(room_id=self.room_id, tools=self._tools, tool_turn=self._turn)
        reporter = CrewAIFlowSubCrewReporter(
            executor=self._executor, run_id=self.run_id, state=self.state
        )
        return build_band_crewai_tools(
            get_context=lambda: context,
            reporter=reporter,
            features=features,
            custom_tools=list(self._custom.values()) if custom_tools is None else custom_tools,
            fallback_loop=self._loop,
        )


flow_runtime: ContextVar[CrewAIFlowRuntimeTools | None] = ContextVar(
    "band_crewai_flow_runtime", default=None
)


def get_current_flow_runtime() -> CrewAIFlowRuntimeTools | None:
    """The running flow's runtime, or None outside a flow execution."""
    return flow_runtime.get()
