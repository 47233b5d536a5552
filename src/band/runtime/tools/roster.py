"""The room roster and mention resolution against it."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from band.core.exceptions import BandToolError

__all__ = ["MISSING_MENTIONS_ERROR", "Roster"]

MISSING_MENTIONS_ERROR = "At least one mention is required"
ROSTER_KEYS = ("id", "name", "type", "handle", "description")


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
        return [m["handle"] for m in self._members if m.get("handle") and m["id"] != self.agent_id]

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
        handles = self.handles()
        if not handles:
            return BandToolError(MISSING_MENTIONS_ERROR)
        return BandToolError(
            f"{MISSING_MENTIONS_ERROR}. Available handles: {handles}. "
            "Use participant handles from the list."
        )

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
