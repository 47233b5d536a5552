"""The run engine of ``CrewAIFlowAdapter``: which run a message belongs to, carrying out
the flow's decisions, joining delegation rounds (``_flow_watchdogs`` watches for peers that
never answer).

Runs live in memory per room (seeded from history on bootstrap) and every change is
written as a ``task`` event carrying the whole run under the adapter's namespace. Work on
a room's runs is serialised by a per-room lock: the room's turns and its watchdogs (one
per run with pending delegations) take turns.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from band.converters.crewai_flow import (
    CrewAIFlowDelegationStatus,
    CrewAIFlowError,
    CrewAIFlowMetadata,
    CrewAIFlowParticipantSnapshot,
    CrewAIFlowRunStatus,
    CrewAIFlowSessionState,
    CrewAIFlowStage,
    CrewAIFlowStateConverter,
    CrewAIFlowTextOnlyBehavior,
    normalize_participant_key,
)
from band.core.protocols import AgentToolsProtocol
from band.core.types import PlatformMessage
from band.runtime.formatters import strip_leading_mentions

from ._flow_decisions import (
    CrewAIFlowAdapterConfig,
    CrewAIFlowTaggedPeerPolicy,
    DelegateDecision,
    DelegateItem,
    FailedDecision,
    FlowDecision,
    WaitingDecision,
)
from ._flow_effects import SideEffectExecutor
from ._flow_sources import CrewAIFlowStateSource
from ._flow_watchdogs import FlowWatchdogs

__all__ = ["FlowRuns"]

Execute = Callable[
    [
        CrewAIFlowMetadata,
        CrewAIFlowSessionState,
        AgentToolsProtocol,
        list[CrewAIFlowParticipantSnapshot],
        dict[str, Any],
        SideEffectExecutor,
    ],
    Awaitable[FlowDecision | str],
]
# The stage each status is written with (a reservation's stage is the executor's).
STAGES = {
    CrewAIFlowRunStatus.OBSERVED: CrewAIFlowStage.INITIAL,
    CrewAIFlowRunStatus.DELEGATED_PENDING: CrewAIFlowStage.WAITING_FOR_REPLIES,
    CrewAIFlowRunStatus.WAITING: CrewAIFlowStage.WAITING_FOR_REPLIES,
    CrewAIFlowRunStatus.REPLY_RECORDED: CrewAIFlowStage.WAITING_FOR_REPLIES,
    CrewAIFlowRunStatus.FAILED: CrewAIFlowStage.FAILED,
}


TRANSCRIPT_LINES = 200  # the conversation a flow is given: the room's latest lines


class FlowRuns:
    """Every room's runs; ``handle`` is a turn, ``execute`` one flow execution."""

    def __init__(
        self,
        namespace: str,
        agent_id: str,
        config: CrewAIFlowAdapterConfig,
        execute: Execute,
        source: CrewAIFlowStateSource,
        converter: CrewAIFlowStateConverter,
    ) -> None:
        self.namespace = namespace
        self.agent_id = agent_id
        self.config = config
        self.execute = execute
        self.source = source
        self.converter = converter
        self.rooms: dict[str, CrewAIFlowSessionState] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.stale: set[str] = set()
        self.watchdogs = FlowWatchdogs(
            self.rooms, self.lock, self._answer_overdue, config.reply_timeout.total_seconds()
        )

    def lock(self, room: str) -> asyncio.Lock:
        """The room's lock: its turns and its watchdogs take turns."""
        return self.locks.setdefault(room, asyncio.Lock())

    # -- turns -------------------------------------------------------------------------------

    async def handle(
        self,
        msg: PlatformMessage,
        tools: AgentToolsProtocol,
        history: CrewAIFlowSessionState,
        participants: list[CrewAIFlowParticipantSnapshot],
        updates: dict[str, str | None],
        *,
        is_session_bootstrap: bool,
    ) -> None:
        room = msg.room_id
        async with self._turn(room):
            if is_session_bootstrap or room not in self.rooms or room in self.stale:
                await self._load(room, tools, history if is_session_bootstrap else None)
                self.stale.discard(room)
                await self._settle(room, tools)
                self.watchdogs.resume(room, tools, participants)
            state = self.rooms[room]
            state.transcript.append({"role": "user", "content": msg.format_for_llm()})
            del state.transcript[:-TRANSCRIPT_LINES]
            run = self._answered_run(state, msg)
            if run is None:
                if msg.sender_type == "Agent" and not self.config.accept_agent_initiated:
                    return
                if state.is_terminal(msg.id):
                    return
                run = state.runs.get(msg.id)
                if run is None:
                    run = self._executor(tools, state, msg.id, msg.id).run
                    run.requester_id, run.requester_name = msg.sender_id, msg.sender_name
                    run.tagged_peer_keys = self._tagged(msg, participants)
            elif not run.joined:
                await self._save(tools, state, run, CrewAIFlowRunStatus.REPLY_RECORDED)
                return
            await self._advance(tools, state, run, participants, msg, updates)

    @contextlib.asynccontextmanager
    async def _turn(self, room: str) -> AsyncIterator[None]:
        """One turn of ``room`` under its lock; a failed turn marks the room stale."""
        async with self.lock(room):
            try:
                yield
            except BaseException:
                # What this turn did in memory may not have reached the room: the next turn
                # reads the runs back (and settles their reservations) instead.
                self.stale.add(room)
                raise

    def _answered_run(
        self, state: CrewAIFlowSessionState, msg: PlatformMessage
    ) -> CrewAIFlowMetadata | None:
        """The newest open run with a delegation pending on this sender; record the reply."""
        for run in reversed(list(state.runs.values())):
            if state.is_terminal(run.run_id):
                continue
            for delegation in run.pending:
                if delegation.target.participant_id == msg.sender_id:
                    delegation.status = CrewAIFlowDelegationStatus.REPLIED
                    delegation.reply_message_id = msg.id
                    delegation.reply_content = strip_leading_mentions(msg.content)
                    return run
        return None

    def _tagged(
        self, msg: PlatformMessage, participants: list[CrewAIFlowParticipantSnapshot]
    ) -> list[str]:
        metadata = msg.metadata if isinstance(msg.metadata, dict) else {}
        mentions = metadata.get("mentions") or []
        mentioned = {str(m.get("id")) for m in mentions if isinstance(m, dict)}
        return [
            p.normalized_key
            for p in participants
            if p.type == "Agent"
            and p.participant_id in mentioned
            and p.participant_id != self.agent_id
        ]

    # -- one flow execution and its decision -------------------------------------------------

    async def _advance(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        participants: list[CrewAIFlowParticipantSnapshot],
        msg: PlatformMessage | None,
        updates: dict[str, str | None],
    ) -> None:
        inputs = {
            "room_id": run.room_id,
            "run": run.model_dump(mode="json"),
            "message": None
            if msg is None
            else {
                "id": msg.id,
                "content": msg.content,
                "sender_id": msg.sender_id,
                "sender_name": msg.sender_name,
                "sender_type": msg.sender_type,
            },
            "requester": {"id": run.requester_id, "name": run.requester_name},
            "participants": [p.model_dump(mode="json") for p in participants],
            "transcript": list(state.transcript),
            **updates,
        }
        executor = self._executor(tools, state, run.run_id, run.parent_message_id)
        try:
            decision = await self.execute(run, state, tools, participants, inputs, executor)
        except Exception as exc:
            if executor.side_effect_aborted:
                return  # a sub-crew's post ended the run indeterminate (reported)
            # The runtime reports the raised error to the room: record the run only.
            run.error = CrewAIFlowError(code="flow_runtime_error", message=f"{exc}"[:500])
            await self._save(tools, state, run, CrewAIFlowRunStatus.FAILED)
            raise
        await self._carry_out(tools, state, run, participants, decision, executor)

    async def _answer_overdue(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        participants: list[CrewAIFlowParticipantSnapshot],
    ) -> None:
        """Run the flow again for a run whose round a reply timeout joined."""
        await self._advance(tools, state, run, participants, None, {})

    async def _carry_out(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        participants: list[CrewAIFlowParticipantSnapshot],
        decision: FlowDecision | str,
        executor: SideEffectExecutor,
    ) -> None:
        if isinstance(decision, str):
            if self.config.text_only_behavior == CrewAIFlowTextOnlyBehavior.FALLBACK_SEND:
                await self._final(tools, state, run, decision, [], executor)
            else:
                await self._fail(
                    tools, state, run, "text_only_result", "the flow returned text, not a decision"
                )
            return
        if isinstance(decision, FailedDecision):
            await self._fail(tools, state, run, decision.error.code, decision.error.message)
        elif isinstance(decision, WaitingDecision):
            await executor.record_waiting(decision.reason)
        elif isinstance(decision, DelegateDecision):
            await self._delegate(tools, state, run, participants, decision.delegations, executor)
        elif not run.joined:
            await self._save(tools, state, run, CrewAIFlowRunStatus.DELEGATED_PENDING)
        else:
            await self._final(tools, state, run, decision.content, decision.mentions, executor)

    async def _delegate(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        participants: list[CrewAIFlowParticipantSnapshot],
        items: list[DelegateItem],
        executor: SideEffectExecutor,
    ) -> None:
        known = {d.delegation_id for d in run.delegations}
        if all(item.delegation_id in known for item in items):
            # A retried turn asking again: settle what is reserved, send nothing new.
            await executor.settle_reservations()
            await self._save(tools, state, run, CrewAIFlowRunStatus.DELEGATED_PENDING)
            return
        if run.delegation_rounds >= self.config.max_delegation_rounds:
            limit = self.config.max_delegation_rounds
            await self._fail(
                tools, state, run, "max_delegation_rounds_exceeded", f"more than {limit} rounds"
            )
            return
        run.delegation_rounds += 1
        await executor.execute_delegations(items=items, state=state, participants=participants)
        if run.status in (CrewAIFlowRunStatus.FAILED, CrewAIFlowRunStatus.INDETERMINATE):
            return
        self.watchdogs.watch(run.room_id, run.run_id, tools, participants)

    async def _final(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        content: str,
        mentions: list[str],
        executor: SideEffectExecutor,
    ) -> None:
        missing = self._undelegated_tags(run)
        if missing:
            await self._fail(
                tools,
                state,
                run,
                "tagged_peers_not_delegated",
                f"tagged but never asked: {missing}",
            )
            return
        handles = [run.requester_id or run.parent_message_id, *mentions]
        await executor.execute_direct_response(content=content, mentions=handles, state=state)
        if run.status == CrewAIFlowRunStatus.FINALIZED:
            state.transcript.append({"role": "assistant", "content": content})

    def _undelegated_tags(self, run: CrewAIFlowMetadata) -> list[str]:
        if self.config.tagged_peer_policy == CrewAIFlowTaggedPeerPolicy.OFF:
            return []
        asked = {d.target.normalized_key for d in run.delegations}
        missing = [key for key in run.tagged_peer_keys if key not in asked]
        replied = {d.target.normalized_key for d in run.delegations if d.reply_message_id}
        for upstream, downstream in self.config.sequential_chains.items():
            up, down = normalize_participant_key(upstream), normalize_participant_key(downstream)
            if up in replied and down not in asked:
                missing.append(down)
        return missing

    async def _fail(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        code: str,
        message: str,
    ) -> None:
        executor = self._executor(tools, state, run.run_id, run.parent_message_id)
        await executor.record_failed(CrewAIFlowError(code=code, message=message))

    async def _save(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run: CrewAIFlowMetadata,
        status: CrewAIFlowRunStatus,
    ) -> None:
        executor = self._executor(tools, state, run.run_id, run.parent_message_id)
        await executor.record(status, STAGES.get(status, run.stage), f"{status}:{run.run_id}")

    def _executor(
        self,
        tools: AgentToolsProtocol,
        state: CrewAIFlowSessionState,
        run_id: str,
        parent_message_id: str,
    ) -> SideEffectExecutor:
        return SideEffectExecutor(
            tools=tools,
            room_id=getattr(tools, "room_id", "") or "",
            run_id=run_id,
            parent_message_id=parent_message_id,
            metadata_namespace=self.namespace,
            join_policy=self.config.join_policy,
            text_only_behavior=self.config.text_only_behavior,
            state=state,
            agent_id=self.agent_id,
        )

    # -- restoring a room ----------------------------------------------------------------

    async def _load(
        self, room: str, tools: AgentToolsProtocol, history: CrewAIFlowSessionState | None
    ) -> None:
        """The room's runs from the state source; its conversation from the history (on a
        bootstrap turn), else the one kept so far."""
        events = await self.source.load_task_events(
            room_id=room, metadata_namespace=self.namespace, tools=tools, history=history
        )
        state = self.converter.convert(events)
        kept = self.rooms.get(room)
        transcript = history.transcript if history is not None else kept.transcript if kept else []
        state.transcript = list(transcript)
        self.rooms[room] = state

    async def _settle(self, room: str, tools: AgentToolsProtocol) -> None:
        """Deliver what a stopped agent reserved but did not confirm."""
        state = self.rooms[room]
        for run in state.active_runs():
            reserved = any(
                d.status == CrewAIFlowDelegationStatus.RESERVED for d in run.delegations
            ) or (run.final_side_effect_key and not run.final_message_id)
            if reserved:
                await self._executor(
                    tools, state, run.run_id, run.parent_message_id
                ).settle_reservations()

    # -- cleanup -----------------------------------------------------------------------------

    async def forget(self, room: str) -> None:
        await self.watchdogs.forget(room)
        self.rooms.pop(room, None)
        self.locks.pop(room, None)

    async def close(self) -> None:
        for room in list(self.rooms):
            await self.forget(room)
