"""The CrewAI Flow adapter's durable state: its runs, written as ``task`` events.

How it works: docs/internals/sdk.md, "CrewAI Flow: durable state".

:class:`CrewAIFlowStateConverter` folds a room's events back into a
:class:`CrewAIFlowSessionState`.
"""

from __future__ import annotations

import logging
import re
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from pydantic import ValidationError

from . import _crewai_flow_models as models
from ._crewai_flow_models import *  # noqa: F403  (its __all__, added below)
from ._crewai_flow_models import (
    TERMINAL_STATUSES,
    CrewAIFlowAmbiguousIdentityError,
    CrewAIFlowError,
    CrewAIFlowMetadata,
    CrewAIFlowRunStatus,
    CrewAIFlowSessionState,
    CrewAIFlowStage,
)
from .crewai import CrewAIHistoryConverter
from .helpers import parse_iso_datetime

__all__ = [
    "CrewAIFlowStateConverter",
    "normalize_participant_key",
]
__all__ += models.__all__

logger = logging.getLogger("band.converters.crewai_flow")


_UUID = re.compile(r"^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$", re.IGNORECASE)


def _plain_key(raw: str) -> str:
    """``@team/Alice`` -> ``alice``: no @, the last path segment, lower case, trimmed."""
    text = raw.strip().removeprefix("@")
    return text.rsplit("/", 1)[-1].strip().lower()


def normalize_participant_key(raw: str, *, participants: list[dict[str, Any]] | None = None) -> str:
    """The canonical key of a participant reference (handle, ``@handle``, name or id).

    With the room's ``participants`` (``{"id", "handle", "name"}`` dicts) an id or a display
    name resolves to that participant's handle; two participants sharing the resulting key
    raise :class:`CrewAIFlowAmbiguousIdentityError`.
    """
    text = (raw or "").strip()
    if not text:
        return ""
    if participants and _UUID.match(text):
        for p in participants:
            if str(p.get("id", "")).lower() == text.lower():
                label = p.get("handle") or p.get("name") or ""
                if label:
                    return _unique(_plain_key(label), participants)
    key = _plain_key(text)
    if participants is None:
        return key
    for p in participants:
        if (p.get("name") or "").strip().lower() == text.lower() and p.get("handle"):
            key = _plain_key(p["handle"])
            break
    return _unique(key, participants)


def _unique(key: str, participants: list[dict[str, Any]]) -> str:
    owners: list[str] = []
    for p in participants:
        labels = [label for label in (p.get("handle"), p.get("name")) if label]
        if any(_plain_key(label) == key for label in labels):
            owner = str(p.get("id") or labels[0])
            if owner not in owners:
                owners.append(owner)
    if len(owners) > 1:
        raise CrewAIFlowAmbiguousIdentityError(key, owners)
    return key


def _when(value: Any) -> datetime | None:
    """A datetime or ISO text, made aware (naive means UTC); None when it is neither."""
    parsed = value if isinstance(value, datetime) else parse_iso_datetime(value)
    if parsed is None:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


_EPOCH = datetime.fromtimestamp(0, tz=UTC)


def event_order(event: dict[str, Any]) -> tuple[datetime, str]:
    """How task events are ordered: ``(inserted_at, id)``, oldest first."""
    return (_when(event.get("inserted_at")) or _EPOCH, str(event.get("id") or ""))


def _merged(old: CrewAIFlowMetadata, new: CrewAIFlowMetadata) -> CrewAIFlowMetadata:
    """``new``'s fields over ``old``'s; lists merged by key; ids once known stay known."""
    delegations = {d.delegation_id: d for d in old.delegations}
    delegations.update({d.delegation_id: d for d in new.delegations})
    chains = {(c.upstream_key, c.downstream_key): c for c in old.sequential_chains}
    chains.update({(c.upstream_key, c.downstream_key): c for c in new.sequential_chains})
    seen = {b.source_message_id for b in old.buffered_syntheses}
    buffered = old.buffered_syntheses + [
        b for b in new.buffered_syntheses if b.source_message_id not in seen
    ]
    effects = {s.side_effect_key: s for s in old.side_effects}
    for s in new.side_effects:
        known = effects.get(s.side_effect_key)
        effects[s.side_effect_key] = (
            s
            if known is None
            else known.model_copy(
                update={
                    k: getattr(s, k) or getattr(known, k)
                    for k in ("reserved_event_id", "message_id", "sent_event_id", "content")
                }
            )
        )
    sticky = ("final_side_effect_key", "final_reserved_event_id", "final_message_id",
              "final_sent_event_id", "error", "requester_id", "requester_name",
              "final_content")  # fmt: skip
    return new.model_copy(
        update={
            "delegations": list(delegations.values()),
            "sequential_chains": list(chains.values()),
            "buffered_syntheses": buffered,
            "side_effects": list(effects.values()),
            "tagged_peer_keys": new.tagged_peer_keys or old.tagged_peer_keys,
            "delegation_rounds": max(old.delegation_rounds, new.delegation_rounds),
            **{k: getattr(new, k) or getattr(old, k) for k in sticky},
        }
    )


class CrewAIFlowStateConverter:
    """Folds a room's ``task`` events under ``metadata_namespace`` into its runs.

    The adapter sets the namespace to ``crewai_flow:<agent_id>`` at start-up, so two flow
    agents in one room keep apart. ``max_run_age`` None keeps unfinished runs open forever.
    """

    def __init__(
        self,
        *,
        metadata_namespace: str = "crewai_flow",
        max_run_age: timedelta | None = None,
        agent_name: str | None = None,
    ) -> None:
        self.metadata_namespace = metadata_namespace
        self.max_run_age = max_run_age
        self._texts = CrewAIHistoryConverter(agent_name or "")

    def set_agent_name(self, agent_name: str) -> None:
        self._texts.set_agent_name(agent_name)

    def convert(self, raw: list[dict[str, Any]]) -> CrewAIFlowSessionState:
        texts = self._texts.convert([e for e in raw if e.get("message_type") != "task"])
        state = CrewAIFlowSessionState(
            transcript=[{"role": m["role"], "content": m["content"]} for m in texts]
        )
        first_seen: dict[str, datetime] = {}
        records = [e for e in raw if isinstance(self._payload(e), dict)]
        for event in sorted(records, key=event_order):
            payload = self._payload(event)
            try:
                run = CrewAIFlowMetadata.model_validate(payload)
            except ValidationError as exc:
                self._malformed(state, payload, event, exc)
                continue
            first_seen.setdefault(run.run_id, event_order(event)[0])
            known = state.runs.get(run.run_id)
            if known is not None and known.status in TERMINAL_STATUSES:
                logger.debug("Ignoring a later record of finished run %s", run.run_id)
                continue
            state.runs[run.run_id] = run if known is None else _merged(known, run)
        if self.max_run_age is not None:
            oldest = datetime.now(UTC) - self.max_run_age
            for run in state.active_runs():
                if first_seen.get(run.run_id, oldest) < oldest:
                    run.status, run.stage = CrewAIFlowRunStatus.FAILED, CrewAIFlowStage.FAILED
                    run.error = CrewAIFlowError(
                        code="run_aged_out",
                        message=f"the run was older than max_run_age ({self.max_run_age})",
                    )
        return state

    def _payload(self, event: dict[str, Any]) -> Any:
        metadata = event.get("metadata")
        return metadata.get(self.metadata_namespace) if isinstance(metadata, dict) else None

    @staticmethod
    def _malformed(
        state: CrewAIFlowSessionState, payload: Any, event: dict[str, Any], exc: ValidationError
    ) -> None:
        run_id = payload.get("run_id") if isinstance(payload, dict) else None
        if not isinstance(run_id, str) or not run_id:
            run_id = f"unknown:{event.get('id') or uuid.uuid4().hex}"
        if state.is_terminal(run_id):
            return
        logger.warning("Malformed CrewAI Flow record %s: %s", event.get("id"), exc.errors()[:1])
        state.runs[run_id] = CrewAIFlowMetadata(
            room_id=str(payload.get("room_id") or ""),
            run_id=run_id,
            parent_message_id=str(payload.get("parent_message_id") or run_id),
            status=CrewAIFlowRunStatus.FAILED,
            stage=CrewAIFlowStage.FAILED,
            error=CrewAIFlowError(code="malformed_metadata", message=str(exc)[:500]),
        )
