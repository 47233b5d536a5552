"""Visible writes of a CrewAI Flow run under reserve, send, confirm (``SideEffectExecutor``).

Each visible write has a side-effect key (``<run>:delegate:<id>``, ``<run>:final``,
``<run>:subcrew:<n>``). Before the message goes out, a ``task`` event reserves the key; after,
another confirms it with the message id. So a write that is confirmed is never repeated (a
retried turn finds it and skips it), and one that is reserved but not confirmed (the agent
stopped, or the confirmation could not be written) is settled on the next attempt by looking
for the message in the room: found, it is confirmed; not found, it is sent. Nothing is sent
twice and nothing reserved is dropped. A write whose send or confirmation fails raises, so
the platform retries the turn; a write that cannot be settled (the room cannot be read) makes
the run indeterminate, reported to the room. The executor writes the whole run each time.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from band.converters.crewai_flow import (
    CrewAIFlowAmbiguousIdentityError,
    CrewAIFlowDelegationState,
    CrewAIFlowDelegationStatus,
    CrewAIFlowError,
    CrewAIFlowJoinPolicy,
    CrewAIFlowMetadata,
    CrewAIFlowParticipantSnapshot,
    CrewAIFlowRunStatus,
    CrewAIFlowSessionState,
    CrewAIFlowStage,
    CrewAIFlowTextOnlyBehavior,
    normalize_participant_key,
)
from band.core.exceptions import BandToolError
from band.core.protocols import AgentToolsProtocol
from band.platform.turn_keys import unkeyed
from band.runtime.formatters import strip_leading_mentions
from band_protocol import AgentFailure

from ._flow_decisions import DelegateItem
from ._flow_sources import room_context

__all__ = ["SideEffectExecutor", "message_id_of", "now"]

logger = logging.getLogger("band.adapters.crewai_flow")
_LOOKUP_PAGE = 100


def now() -> str:
    return datetime.now(UTC).isoformat()


def _at_or_after(value: Any, since: str) -> bool:
    """Whether a message's ``inserted_at`` is not before ``since`` (5 s of clock slack)."""
    try:
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        start = datetime.fromisoformat(since)
    except ValueError:
        return True  # no usable time: the content and sender decide
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    start = start if start.tzinfo else start.replace(tzinfo=UTC)
    return when >= start - timedelta(seconds=5)


def message_id_of(response: Any) -> str | None:
    """The id of a posted message, from a dict or an object answer."""
    value = response.get("id") if isinstance(response, dict) else getattr(response, "id", None)
    return str(value) if value else None


class SideEffectExecutor:
    """Writes one run's state and its visible messages (reserve, send, confirm).

    ``state`` (ours) is the room's live state the run is kept in; ``agent_id`` (ours) finds
    the agent's own messages when settling a reservation.
    """

    def __init__(
        self,
        *,
        tools: AgentToolsProtocol,
        room_id: str,
        run_id: str,
        parent_message_id: str,
        metadata_namespace: str,
        join_policy: CrewAIFlowJoinPolicy,
        text_only_behavior: CrewAIFlowTextOnlyBehavior,
        tagged_peer_keys: list[str] | None = None,
        delegation_rounds: int = 0,
        confirm_retry_attempts: int = 2,
        state: CrewAIFlowSessionState | None = None,
        agent_id: str | None = None,
    ) -> None:
        self.tools = tools
        self.state = state if state is not None else CrewAIFlowSessionState()
        self._run_id = run_id
        self._namespace = metadata_namespace
        self._confirm_retries = confirm_retry_attempts
        self._agent_id = agent_id if agent_id is not None else getattr(tools, "agent_id", None)
        self._subcrew_count = 0
        self._aborted = False
        self._reserved_here: set[str] = set()
        self._final_mentions: list[str] = []
        if run_id not in self.state.runs:
            self.state.runs[run_id] = CrewAIFlowMetadata(
                room_id=room_id,
                run_id=run_id,
                parent_message_id=parent_message_id,
                status=CrewAIFlowRunStatus.OBSERVED,
                stage=CrewAIFlowStage.INITIAL,
                join_policy=join_policy,
                text_only_behavior=text_only_behavior,
                tagged_peer_keys=list(tagged_peer_keys or []),
                delegation_rounds=delegation_rounds,
            )

    @property
    def run_id(self) -> str:
        return self._run_id

    @property
    def metadata_namespace(self) -> str:
        return self._namespace

    @property
    def side_effect_aborted(self) -> bool:
        """Whether a visible write of this run ended indeterminate."""
        return self._aborted

    @property
    def run(self) -> CrewAIFlowMetadata:
        return self.state.runs[self._run_id]

    def next_subcrew_key(self) -> str:
        """The key of this execution's next sub-crew post (the same sequence on a retry)."""
        self._subcrew_count += 1
        return f"{self._run_id}:subcrew:{self._subcrew_count}"

    # -- writing the run -----------------------------------------------------------------

    async def _send_event(
        self, *, content: str, message_type: str, metadata: dict[str, Any], retry_attempts: int
    ) -> Any:
        for attempt in range(retry_attempts + 1):
            try:
                with unkeyed():
                    return await self.tools.send_event(content, message_type, metadata)
            except Exception as exc:
                if attempt == retry_attempts:
                    raise BandToolError(
                        f"could not write the {message_type} event after {attempt + 1} "
                        f"attempts: {exc}"
                    ) from exc
                await asyncio.sleep(0.1 * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    async def record(
        self,
        status: CrewAIFlowRunStatus,
        stage: CrewAIFlowStage,
        note: str,
        *,
        retry_attempts: int = 2,
    ) -> str | None:
        """Write the run with ``status`` and ``stage``; the task event's id."""
        run = self.run
        run.status, run.stage, run.updated_at = status, stage, now()
        event = await self._send_event(
            content=f"{note}"[:500],
            message_type="task",
            metadata={self._namespace: run.model_dump(mode="json", exclude_none=True)},
            retry_attempts=retry_attempts,
        )
        return message_id_of(event)

    async def record_observed(self) -> None:
        await self.record(CrewAIFlowRunStatus.OBSERVED, CrewAIFlowStage.INITIAL, "observed")

    async def record_waiting(self, reason: str) -> None:
        await self.record(
            CrewAIFlowRunStatus.WAITING, CrewAIFlowStage.WAITING_FOR_REPLIES, f"waiting:{reason}"
        )

    async def record_failed(self, error: CrewAIFlowError) -> None:
        """Report the failure to the room (an error event), then close the run as failed."""
        text = error.message[:500]
        detail = error.message if text != error.message else None
        try:
            await self.tools.send_failure(AgentFailure("crewai_flow", text, error.code, detail))
        except Exception as exc:  # the record below still closes the run
            logger.warning("Could not report CrewAI Flow failure %s: %s", error.code, exc)
        self.run.error = error
        await self.record(
            CrewAIFlowRunStatus.FAILED, CrewAIFlowStage.FAILED, f"failed:{error.code}"
        )

    async def _record_indeterminate(self, *, side_effect_key: str) -> None:
        self._aborted = True
        self.run.error = CrewAIFlowError(
            code="side_effect_indeterminate",
            message=f"could not tell whether {side_effect_key} reached the room",
        )
        try:
            await self.tools.send_failure(
                AgentFailure("crewai_flow", self.run.error.message, self.run.error.code, None)
            )
            await self.record(
                CrewAIFlowRunStatus.INDETERMINATE,
                CrewAIFlowStage.INDETERMINATE,
                f"indeterminate:{side_effect_key}",
                retry_attempts=1,
            )
        except Exception:
            logger.exception("Could not record %s as indeterminate", side_effect_key)

    # -- one visible write ---------------------------------------------------------------

    async def post(
        self,
        key: str,
        content: str,
        mentions: list[str],
        *,
        reserved_at: str | None,
    ) -> str | None:
        """Deliver a reserved write once: the message found in the room if an earlier attempt
        sent it, else sent now. Its message id; None when the room cannot be read."""
        if reserved_at is not None:
            try:
                found = await self._find_sent(content, reserved_at)
            except Exception as exc:
                logger.warning("Could not look for %s in the room: %s", key, exc)
                await self._record_indeterminate(side_effect_key=key)
                return None
            if found is not None:
                logger.info("Side effect %s was already sent (message %s)", key, found)
                return found
        with unkeyed():  # reserve, send, confirm is this write's idempotency
            return message_id_of(await self.tools.send_message(content, mentions or None))

    async def _find_sent(self, content: str, since: str) -> str | None:
        """The agent's message with ``content`` posted at or after ``since``, if any."""
        claimed = self._claimed_ids()
        wanted = strip_leading_mentions(content)
        page = 1
        while True:
            answer = await room_context(self.tools)(
                room_id=self.run.room_id, page=page, page_size=_LOOKUP_PAGE
            )
            data = answer.get("data") or []
            for item in data:
                if (
                    isinstance(item, dict)
                    and item.get("sender_id") == self._agent_id
                    and (item.get("message_type") or "text") == "text"
                    and strip_leading_mentions(str(item.get("content") or "")) == wanted
                    and _at_or_after(item.get("inserted_at"), since)
                    and str(item.get("id")) not in claimed
                ):
                    return str(item["id"])
            if len(data) < _LOOKUP_PAGE:
                return None
            page += 1

    def _claimed_ids(self) -> set[str]:
        ids = {d.delegation_message_id for d in self.run.delegations}
        ids |= {s.message_id for s in self.run.side_effects} | {self.run.final_message_id}
        return {i for i in ids if i}

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
