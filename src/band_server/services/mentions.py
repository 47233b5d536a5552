"""Mention resolution and content normalisation for posted messages.

A mention names a participant by ``id``, ``handle`` or (as a last resort) a unique ``name``.
Only active participants of the room can be mentioned. Content is normalised so that every
mentioned participant appears as an ``@[[<uuid>]]`` token: an inline ``@handle`` is rewritten
in place, and one token is prepended for each mention the text does not already carry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from band.protocol import Recipient
from band.protocol.messages import MentionRef

from ..errors import ValidationFailed
from .rooms import Member

NOT_IN_ROOM = "mentioned_participant_not_in_room"
"""The exact ``error.message`` the official client recognises for an unresolvable mention."""

MentionKind = Literal["mention", "reference"]


def token(participant_id: str) -> str:
    """The normalised in-content form of a mention."""
    return f"@[[{participant_id}]]"


@dataclass(frozen=True)
class ResolvedMention:
    """A mention matched to a room member. ``reference`` names someone without routing."""

    member: Member
    kind: MentionKind = "mention"

    @property
    def id(self) -> str:
        return self.member.id

    @property
    def routes(self) -> bool:
        """Whether this mention triggers the participant (a delivery for an agent)."""
        return self.kind == "mention"

    def metadata(self) -> dict[str, Any]:
        """The item stored in ``metadata.mentions``."""
        item: dict[str, Any] = {
            "id": self.member.id,
            "handle": self.member.handle,
            "name": self.member.name,
            "username": self.member.handle,
        }
        if self.kind == "reference":
            item["kind"] = "reference"
        return item

    def recipient(self) -> Recipient:
        return Recipient(id=self.member.id, handle=self.member.handle, name=self.member.name)


def _clean(value: str | None) -> str:
    return (value or "").strip()


def _lookup(
    ref: MentionRef,
    by_id: dict[str, Member],
    by_handle: dict[str, Member],
    by_name: dict[str, list[Member]],
) -> Member | None:
    # The id wins when present: routing to someone other than the named id would be worse
    # than refusing the message.
    if _clean(ref.id):
        return by_id.get(_clean(ref.id))
    handle = _clean(ref.handle).removeprefix("@").lower()
    if handle:
        return by_handle.get(handle)
    name = _clean(ref.name).removeprefix("@").lower()
    if name:
        matches = by_name.get(name, [])
        return matches[0] if len(matches) == 1 else None
    return None


def resolve_mentions(
    sender_id: str,
    roster: Sequence[Member],
    refs: Sequence[MentionRef],
    *,
    pointer: str = "/message/mentions",
) -> list[ResolvedMention]:
    """Match outbound mentions against the room's active members.

    Self mentions are dropped (nobody is delivered their own message) and duplicates merge.
    Any mention that names nobody in the room refuses the whole message with a 422 whose
    message is exactly :data:`NOT_IN_ROOM`.
    """
    by_id = {m.id: m for m in roster}
    by_handle = {m.handle.lower(): m for m in roster if m.handle}
    by_name: dict[str, list[Member]] = {}
    for m in roster:
        name = m.name.strip().lower()
        # ``@Name-With-Dashes`` is how clients write a participant that has no handle.
        for key in {name, name.replace(" ", "-")} - {""}:
            by_name.setdefault(key, []).append(m)

    found: dict[str, ResolvedMention] = {}
    unresolved: dict[str, list[str]] = {}
    for i, ref in enumerate(refs):
        member = _lookup(ref, by_id, by_handle, by_name)
        if member is None:
            unresolved[f"{pointer}/{i}"] = ["is not a participant of this room"]
            continue
        if member.id == sender_id:
            continue
        previous = found.get(member.id)
        kind: MentionKind = ref.kind
        if previous is not None and previous.routes:
            kind = "mention"
        found[member.id] = ResolvedMention(member, kind)
    if unresolved:
        raise ValidationFailed(NOT_IN_ROOM, unresolved)
    return list(found.values())


def inline_pattern(handle: str) -> re.Pattern[str]:
    """The pattern of ``@handle`` written inline in message text (case-insensitive)."""
    # ``@alice`` must not match inside ``@alice/echo`` or ``bob@alice.dev``; a trailing full stop
    # that ends a sentence is not part of the handle.
    return re.compile(
        r"(?<![\w@/.\-])@" + re.escape(handle) + r"(?![\w/\-]|\.\w)",
        re.IGNORECASE,
    )


def normalise_content(content: str, mentions: Sequence[ResolvedMention]) -> str:
    """Rewrite inline ``@handle`` to ``@[[uuid]]`` and prepend a token per missing mention."""
    missing: list[str] = []
    for mention in mentions:
        tok = token(mention.id)
        if mention.member.handle:
            # re.sub treats backslashes in the replacement specially; escape them.
            pattern = inline_pattern(mention.member.handle)
            content = pattern.sub(tok.replace("\\", "\\\\"), content)
        if tok not in content and mention.routes:
            missing.append(tok)
    if not missing:
        return content
    return " ".join([*missing, content])
