"""Visible writes of a CrewAI Flow run under reserve, send, confirm (``SideEffectExecutor``).

How it works: docs/internals/sdk.md, "CrewAI Flow: visible writes".

Nothing is sent twice and nothing reserved is dropped, across restarts and retried turns.
"""

from __future__ import annotations

import hashlib
import logging

from band.converters.crewai_flow import (
    CrewAIFlowAmbiguousIdentityError,
    CrewAIFlowDelegationState,
    CrewAIFlowDelegationStatus,
    CrewAIFlowError,
    CrewAIFlowMetadata,
    CrewAIFlowParticipantSnapshot,
    CrewAIFlowRunStatus,
    CrewAIFlowSessionState,
    CrewAIFlowStage,
    normalize_participant_key,
)

from ._flow_decisions import DelegateItem
from ._flow_writes import RunWriter, now

__all__ = ["SideEffectExecutor"]

logger = logging.getLogger("band.adapters.crewai_flow")


class SideEffectExecutor(RunWriter):
    """Writes one run's state and its visible messages (reserve, send, confirm).

    ``state`` (ours) is the room's live state the run is kept in; ``agent_id`` (ours) finds
    the agent's own messages when settling a reservation.
    """

    # -- delegations ---------------------------------------------------------------------

    async def execute_delegations(
        self,
        *,
        items: list[DelegateItem],
        state: CrewAIFlowSessionState,
        participants: list[CrewAIFlowParticipantSnapshot],
    ) -> int:
        """Reserve, send and confirm one delegation per item; how many were sent now.

        A delegation id already confirmed is skipped; one reserved earlier is settled.
        """
        run = self.run
        room = [
            {"id": p.participant_id, "handle": p.handle, "name": p.name or p.handle}
            for p in participants
        ]
        keys: dict[str, str] = {}
        for item in items:
            try:
                keys[item.delegation_id] = normalize_participant_key(item.target, participants=room)
            except CrewAIFlowAmbiguousIdentityError as exc:
                await self.record_failed(
                    CrewAIFlowError(code="ambiguous_participant", message=str(exc))
                )
                return 0
        by_key = {p.normalized_key: p for p in participants}
        unknown = [item.target for item in items if keys[item.delegation_id] not in by_key]
        if unknown:
            message = f"not in the room: {unknown}"
            await self.record_failed(CrewAIFlowError(code="unknown_participant", message=message))
            return 0
        per_target: dict[str, int] = {}
        for key in [d.target.normalized_key for d in run.delegations] + list(keys.values()):
            per_target[key] = per_target.get(key, 0) + 1
        sent = 0
        for item in items:
            target = by_key[keys[item.delegation_id]]
            known = next(
                (d for d in run.delegations if d.delegation_id == item.delegation_id), None
            )
            if known is not None and known.status != CrewAIFlowDelegationStatus.RESERVED:
                continue  # sent (and maybe answered) already
            if known is None:
                known = await self._reserve_delegation(item, target, per_target)
            if await self._deliver_delegation(known, item.mentions):
                sent += 1
            if self._aborted:
                break
        return sent

    async def _reserve_delegation(
        self,
        item: DelegateItem,
        target: CrewAIFlowParticipantSnapshot,
        per_target: dict[str, int],
    ) -> CrewAIFlowDelegationState:
        key = f"{self._run_id}:delegate:{item.delegation_id}"
        content = item.content
        if per_target.get(target.normalized_key, 0) > 1:  # tell the peer's replies apart
            content = f"[ref:{hashlib.sha256(key.encode()).hexdigest()[:8]}] {content}"
        delegation = CrewAIFlowDelegationState(
            delegation_id=item.delegation_id,
            target=target,
            side_effect_key=key,
            content=content,
            delegated_at=now(),
        )
        self.run.delegations.append(delegation)
        self._reserved_here.add(key)
        delegation.reserved_event_id = await self.record(
            CrewAIFlowRunStatus.SIDE_EFFECT_RESERVED, CrewAIFlowStage.DELEGATED, f"reserve:{key}"
        )
        return delegation

    def _since(self, key: str, reserved_at: str | None) -> str | None:
        """Where to look for an earlier attempt's message: None when reserved just now."""
        return None if key in self._reserved_here else (reserved_at or "")

    async def _deliver_delegation(
        self, delegation: CrewAIFlowDelegationState, mentions: list[str]
    ) -> bool:
        """Send (or find) a reserved delegation and confirm it; whether it is now pending."""
        target = delegation.target.handle or delegation.target.participant_id
        handles = [target, *(m for m in mentions if m != target)]
        key = delegation.side_effect_key
        message_id = await self.post(
            key, delegation.content, handles, reserved_at=self._since(key, delegation.delegated_at)
        )
        if self._aborted:
            return False
        delegation.delegation_message_id = message_id
        delegation.status = CrewAIFlowDelegationStatus.PENDING
        delegation.delegated_at = now()
        delegation.sent_event_id = await self._confirm(
            CrewAIFlowRunStatus.DELEGATED_PENDING, CrewAIFlowStage.DELEGATED, f"delegated:{key}"
        )
        return True

    async def _confirm(
        self, status: CrewAIFlowRunStatus, stage: CrewAIFlowStage, note: str
    ) -> str | None:
        """The confirmation write (retried); failing, the turn fails and is retried later,
        when the reservation is settled by finding the message."""
        return await self.record(status, stage, note, retry_attempts=self._confirm_retries)

    async def settle_reservations(self) -> None:
        """Deliver what an earlier attempt reserved but did not confirm (after a restart)."""
        run = self.run
        for delegation in run.delegations:
            if delegation.status == CrewAIFlowDelegationStatus.RESERVED and not self._aborted:
                await self._deliver_delegation(delegation, [])
        if (
            run.status == CrewAIFlowRunStatus.SIDE_EFFECT_RESERVED
            and run.final_side_effect_key
            and not run.final_message_id
            and run.final_content is not None
            and not self._aborted
        ):
            mentions = self._final_mentions or ([run.requester_id] if run.requester_id else [])
            await self._deliver_final(run.final_content, mentions)

    # -- the final answer ----------------------------------------------------------------

    async def execute_direct_response(
        self, *, content: str, mentions: list[str], state: CrewAIFlowSessionState
    ) -> None:
        """Post the run's one final answer (reserve, send, confirm); never twice."""
        run = self.run
        if run.status == CrewAIFlowRunStatus.FINALIZED or run.final_message_id:
            logger.debug("Run %s already answered; not answering again", self._run_id)
            return
        self._final_mentions = mentions
        if run.final_side_effect_key is None:
            run.final_side_effect_key = f"{self._run_id}:final"
            run.final_content = content
            self._reserved_here.add(run.final_side_effect_key)
            run.final_reserved_event_id = await self.record(
                CrewAIFlowRunStatus.SIDE_EFFECT_RESERVED,
                CrewAIFlowStage.SYNTHESIZING,
                f"reserve:{run.final_side_effect_key}",
            )
        await self._deliver_final(run.final_content or content, mentions)

    async def _deliver_final(self, content: str, mentions: list[str]) -> None:
        run = self.run
        key = run.final_side_effect_key or f"{self._run_id}:final"
        message_id = await self.post(
            key, content, mentions, reserved_at=self._since(key, run.updated_at)
        )
        if self._aborted:
            return
        run.final_message_id = message_id
        run.final_sent_event_id = await self._confirm(
            CrewAIFlowRunStatus.FINALIZED, CrewAIFlowStage.DONE, f"finalized:{key}"
        )

    # -- replies -------------------------------------------------------------------------

    async def record_reply(
        self,
        *,
        run_id: str,
        delegation_id: str,
        reply_message_id: str,
        delegations: list[CrewAIFlowDelegationState],
    ) -> CrewAIFlowMetadata:
        """Mark ``delegation_id`` replied with ``reply_message_id`` and write the run."""
        for delegation in delegations:
            if delegation.delegation_id == delegation_id:
                delegation.status = CrewAIFlowDelegationStatus.REPLIED
                delegation.reply_message_id = reply_message_id
        self.run.delegations = list(delegations)
        await self.record(
            CrewAIFlowRunStatus.REPLY_RECORDED,
            CrewAIFlowStage.WAITING_FOR_REPLIES,
            f"reply_recorded:{delegation_id}",
        )
        return self.run
