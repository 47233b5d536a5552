"""``RunWriter``: a CrewAI Flow run's task events, and one visible write delivered once.

``record`` writes the whole run as a ``task`` event under the adapter's namespace (retried);
``post`` delivers a reserved write: the agent's message found in the room if an earlier
attempt sent it, else sent now. ``_flow_effects.SideEffectExecutor`` builds the reserve,
send, confirm protocol of delegations and final answers on it.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from band.converters import crewai_flow as flow
from band.core.protocols import AgentToolsProtocol
from band.platform.turn_keys import unkeyed
from band.runtime.formatters import strip_leading_mentions
from band_protocol import AgentFailure

from ._flow_sources import room_context, with_retries

__all__ = ["RunWriter", "message_id_of", "now"]

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


class RunWriter:
    """Writes one run's state (task events) and delivers one visible write at most once.

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
        join_policy: flow.CrewAIFlowJoinPolicy,
        text_only_behavior: flow.CrewAIFlowTextOnlyBehavior,
        tagged_peer_keys: list[str] | None = None,
        delegation_rounds: int = 0,
        confirm_retry_attempts: int = 2,
        state: flow.CrewAIFlowSessionState | None = None,
        agent_id: str | None = None,
    ) -> None:
        self.tools = tools
        self.state = state if state is not None else flow.CrewAIFlowSessionState()
        self._run_id = run_id
        self._namespace = metadata_namespace
        self._confirm_retries = confirm_retry_attempts
        self._agent_id = agent_id if agent_id is not None else getattr(tools, "agent_id", None)
        self._subcrew_count = 0
        self._aborted = False
        self._reserved_here: set[str] = set()
        self._final_mentions: list[str] = []
        if run_id not in self.state.runs:
            self.state.runs[run_id] = flow.CrewAIFlowMetadata(
                room_id=room_id,
                run_id=run_id,
                parent_message_id=parent_message_id,
                status=flow.CrewAIFlowRunStatus.OBSERVED,
                stage=flow.CrewAIFlowStage.INITIAL,
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
    def run(self) -> flow.CrewAIFlowMetadata:
        return self.state.runs[self._run_id]

    def next_subcrew_key(self) -> str:
        """The key of this execution's next sub-crew post (the same sequence on a retry)."""
        self._subcrew_count += 1
        return f"{self._run_id}:subcrew:{self._subcrew_count}"

    # -- writing the run -----------------------------------------------------------------

    async def _send_event(
        self, *, content: str, message_type: str, metadata: dict[str, Any], retry_attempts: int
    ) -> Any:

        async def send() -> Any:
            with unkeyed():
                return await self.tools.send_event(content, message_type, metadata)

        return await with_retries(
            send,
            retry_attempts,
            lambda tries, exc: (
                f"could not write the {message_type} event after {tries} attempts: {exc}"
            ),
        )

    async def record(
        self,
        status: flow.CrewAIFlowRunStatus,
        stage: flow.CrewAIFlowStage,
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
        await self.record(
            flow.CrewAIFlowRunStatus.OBSERVED, flow.CrewAIFlowStage.INITIAL, "observed"
        )

    async def record_waiting(self, reason: str) -> None:
        await self.record(
            flow.CrewAIFlowRunStatus.WAITING,
            flow.CrewAIFlowStage.WAITING_FOR_REPLIES,
            f"waiting:{reason}",
        )

    async def record_failed(self, error: flow.CrewAIFlowError) -> None:
        """Report the failure to the room (an error event), then close the run as failed."""
        text = error.message[:500]
        detail = error.message if text != error.message else None
        try:
            await self.tools.send_failure(AgentFailure("crewai_flow", text, error.code, detail))
        except Exception as exc:  # the record below still closes the run
            logger.warning("Could not report CrewAI Flow failure %s: %s", error.code, exc)
        self.run.error = error
        await self.record(
            flow.CrewAIFlowRunStatus.FAILED, flow.CrewAIFlowStage.FAILED, f"failed:{error.code}"
        )

    async def _record_indeterminate(self, *, side_effect_key: str) -> None:
        self._aborted = True
        self.run.error = flow.CrewAIFlowError(
            code="side_effect_indeterminate",
            message=f"could not tell whether {side_effect_key} reached the room",
        )
        try:
            await self.tools.send_failure(
                AgentFailure("crewai_flow", self.run.error.message, self.run.error.code, None)
            )
            await self.record(
                flow.CrewAIFlowRunStatus.INDETERMINATE,
                flow.CrewAIFlowStage.INDETERMINATE,
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
