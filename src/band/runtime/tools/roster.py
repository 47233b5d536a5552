"""The room roster and mention resolution against it."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from band.core.exceptions import BandToolError

__all__ = [
    "MISSING_MENTIONS_ERROR",
    "Roster",
    "append_mention_handles_hint",
    "available_mention_handles",
    "entity_field",
    "strip_handle_prefix",
]

MISSING_MENTIONS_ERROR = "At least one mention is required"
ROSTER_KEYS = ("id", "name", "type", "handle", "description")
_HANDLES_HINT = "Available handles:"  # one marker: the hint is never appended twice


def strip_handle_prefix(value: str) -> str:
    """``@Alice`` and ``alice`` compare equal: no leading ``@``, lower case."""
    return value.lstrip("@").lower()


def entity_field(entity: Mapping[str, Any] | Any, field: str) -> str:
    """A field of a dict or a model as text (``""`` when absent)."""
    value = entity.get(field) if isinstance(entity, Mapping) else getattr(entity, field, None)
    return str(value) if value else ""


def available_mention_handles(
    participants: Iterable[Any], agent_id: str | None = None
) -> list[str]:
    """The handles this agent may mention (its own left out)."""
    return [
        handle
        for p in participants
        if (handle := entity_field(p, "handle"))
        and (agent_id is None or entity_field(p, "id") != agent_id)
    ]


def append_mention_handles_hint(error: str, handles: list[str]) -> str:
    """``error`` with a retry hint naming ``handles`` (unchanged when none, or already there)."""
    if not handles or _HANDLES_HINT in error:
        return error
    return f"{error}. {_HANDLES_HINT} {handles}. Use participant handles from the list."


class Roster:
    """The cached participants of one room (dicts with id, name, type, handle, description)."""

    def __init__(self, participants: Iterable[Mapping[str, Any]], *, agent_id: str = "") -> None:
        self.agent_id = agent_id
        self._members: list[dict[str, Any]] = []
        self.replace(participants)

    def replace(self, participants: Iterable[Mapping[str, Any]]) -> None:
        self._members = [{k: p.get(k) for k in ROSTER_KEYS} for p in participants]

    def add(self, participant: Mapping[str, Any]) -> None:
        self.remove(str(participant.get("id")))
        self._members.append({k: participant.get(k) for k in ROSTER_KEYS})

    def remove(self, participant_id: str) -> None:
        self._members = [m for m in self._members if m.get("id") != participant_id]

    @property
    def members(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self._members]

    def handles(self) -> list[str]:
        """Handles of the other participants (the hint given with mention errors)."""
        return available_mention_handles(self._members, self.agent_id)

    def find(self, identifier: str) -> dict[str, Any] | None:
        """Match by handle (``@`` stripped), then name, then id; exact before case-folded."""
        key = identifier.strip()
        bare = key.removeprefix("@")
        for field, value in (("handle", bare), ("name", key), ("id", key)):
            for member in self._members:
                if member.get(field) == value:
                    return dict(member)
        folded = bare.casefold()
        for field in ("handle", "name"):
            for member in self._members:
                candidate = member.get(field)
                if isinstance(candidate, str) and candidate.casefold() == folded:
                    return dict(member)
        return None

    def unknown(self, identifier: str) -> ValueError:
        return ValueError(
            f"Unknown participant '{identifier}'. Available handles: {self.handles()}"
        )

    def missing_mentions(self) -> BandToolError:
        return BandToolError(append_mention_handles_hint(MISSING_MENTIONS_ERROR, self.handles()))

    def resolve(
        self, mentions: Iterable[str | Mapping[str, Any]] | None, *, strict: bool = True
    ) -> list[dict[str, str]]:
        """Wire mentions ``[{id, handle}]`` (deduplicated); handle is "" when unknown.

        Unknown identifiers raise ValueError when ``strict``; otherwise they pass through
        as their own id. No mention at all raises ``BandToolError``.
        """
        resolved: list[dict[str, str]] = []
        for mention in mentions or []:
            if isinstance(mention, Mapping):
                if not mention.get("id"):
                    warnings.warn(
                        "mention dicts without 'id' are deprecated; pass a handle string",
                        DeprecationWarning,
                        stacklevel=3,
                    )
                    mention = str(mention.get("handle") or mention.get("name") or "")
                else:
                    known = self.find(str(mention["id"])) or {}
                    handle = mention.get("handle") or known.get("handle") or ""
                    resolved.append({"id": str(mention["id"]), "handle": str(handle)})
                    continue
            if not str(mention).strip():
                continue
            member = self.find(str(mention))
            if member is None:
                if strict:
                    raise self.unknown(str(mention))
                member = {"id": str(mention).removeprefix("@"), "handle": ""}
            resolved.append({"id": str(member["id"]), "handle": str(member.get("handle") or "")})
        unique = list({m["id"]: m for m in resolved}.values())
        if not unique:
            raise self.missing_mentions()
        return unique
