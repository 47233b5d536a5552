"""Mention resolution and content normalisation for posted messages.

A mention names a participant by ``id``, ``handle`` or (as a last resort) a unique ``name``.
Only active participants of the room can be mentioned. Content is normalised so that every
mentioned participant appears exactly once per place it is written, as an ``@[[<uuid>]]``
token: an inline ``@handle``, ``@Display Name`` (spaces included) or ``@Display-Name`` is
rewritten in place, and one token is prepended for each mention the text does not already
carry. A person's text is also where their mentions come from (:func:`mentions_in_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from band_protocol.messages import MentionRef
from band_server.errors import ValidationFailed
from band_server.services.rooms.membership import Member

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

    def recipient(self) -> dict[str, Any]:
        """``Recipient(...).model_dump(mode="json")``, built straight (every post answers
        its recipients)."""
        return {"id": self.member.id, "handle": self.member.handle, "name": self.member.name}


@dataclass(frozen=True)
class _Index:
    """A roster's members by id, handle and name (lower case), as mentions name them."""

    by_id: dict[str, Member]
    by_handle: dict[str, Member]
    by_name: dict[str, list[Member]]

    @classmethod
    def of(cls, roster: Sequence[Member]) -> _Index:
        by_name: dict[str, list[Member]] = {}
        for m in roster:
            name = m.name.strip().lower()
            # ``@Name-With-Dashes`` is how clients write a participant that has no handle.
            for key in {name, name.replace(" ", "-")} - {""}:
                by_name.setdefault(key, []).append(m)
        return cls(
            {m.id: m for m in roster}, {m.handle.lower(): m for m in roster if m.handle}, by_name
        )

    def lookup(self, ref: MentionRef) -> Member | None:
        # The id wins when present: routing to someone other than the named id would be
        # worse than refusing the message.
        ident = (ref.id or "").strip()
        if ident:
            return self.by_id.get(ident)
        handle = (ref.handle or "").strip().removeprefix("@").lower()
        if handle:
            return self.by_handle.get(handle)
        name = (ref.name or "").strip().removeprefix("@").lower()
        if name:
            matches = self.by_name.get(name, [])
            return matches[0] if len(matches) == 1 else None
        return None


_SNAPSHOTS = 256
_T = TypeVar("_T")


class _BySnapshot(Generic[_T]):
    """What is built from a roster snapshot, found by the snapshot's identity: hashing a
    roster hashes each member, on every post. An entry holds its roster, so its id cannot be
    reused while it is cached; at :data:`_SNAPSHOTS` entries the cache starts again."""

    def __init__(
        self,
        build: Callable[[tuple[Member, ...]], _T],
        entries: dict[int, tuple[tuple[Member, ...], _T]],
    ) -> None:
        self._build = build
        self._entries = entries

    def of(self, roster: tuple[Member, ...]) -> _T:
        hit = self._entries.get(id(roster))
        if hit is not None and hit[0] is roster:
            return hit[1]
        if len(self._entries) >= _SNAPSHOTS:
            self._entries.clear()
        built = self._build(roster)
        self._entries[id(roster)] = (roster, built)
        return built


_indexes: dict[int, tuple[tuple[Member, ...], _Index]] = {}
# Their bound ``of``: calling the object itself would go through its type's call slot, a few
# hundred instructions more each post.
_index_of_roster = _BySnapshot(_Index.of, _indexes).of


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
    message is exactly :data:`NOT_IN_ROOM`. A roster snapshot's index (a tuple, as the roster
    cache keeps it) is built once per snapshot.
    """
    index = _index_of_roster(roster) if isinstance(roster, tuple) else _Index.of(roster)
    found: dict[str, ResolvedMention] = {}
    unresolved: dict[str, list[str]] = {}
    for i, ref in enumerate(refs):
        member = index.lookup(ref)
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


_BEFORE = r"(?<![\w@/.\-])@"
# ``@alice`` must not match inside ``@alice/echo`` or ``bob@alice.dev``; a trailing full stop
# that ends a sentence is not part of the name.
_AFTER = r"(?![\w/\-]|\.\w)"


def inline_pattern(handle: str) -> re.Pattern[str]:
    """The pattern of ``@handle`` written inline in message text (case-insensitive)."""
    return re.compile(_BEFORE + re.escape(handle) + _AFTER, re.IGNORECASE)


def _forms(member: Member) -> list[str]:
    """How a member may be written after ``@``: display name, dashed name, handle."""
    name = " ".join(member.name.split())
    return [f for f in (name, name.replace(" ", "-"), member.handle.strip()) if f]


class InlineMentions:
    """Finds members written inline as ``@handle``, ``@Display Name`` or ``@Display-Name``.

    The longest form wins at each place, so ``@Bob Smith`` is never read as ``@Bob``. A name
    two members share names neither (it is left as text); a handle always names its member.
    """

    def __init__(self, members: Sequence[Member]) -> None:
        by_form: dict[str, Member | None] = {}
        for member in members:
            for form in _forms(member)[:2]:
                key = form.lower()
                seen = by_form.get(key, member)
                by_form[key] = member if seen is not None and seen.id == member.id else None
        for member in members:
            if member.handle.strip():
                by_form[member.handle.strip().lower()] = member
        self._by_form = by_form
        alternatives = "|".join(re.escape(f) for f in sorted(by_form, key=len, reverse=True))
        self._pattern = (
            re.compile(_BEFORE + "(" + alternatives + ")" + _AFTER, re.IGNORECASE)
            if by_form
            else None
        )

    def _member(self, match: re.Match[str]) -> Member | None:
        return self._by_form.get(match[1].lower())

    def find(self, content: str) -> list[Member]:
        """Members named inline, each once, in the order they first appear."""
        if self._pattern is None:
            return []
        found: dict[str, Member] = {}
        for match in self._pattern.finditer(content):
            member = self._member(match)
            if member is not None:
                found.setdefault(member.id, member)
        return list(found.values())

    def rewrite(self, content: str, ids: set[str]) -> str:
        """Replace each inline form of a member in ``ids`` by that member's token."""
        if self._pattern is None or not ids:
            return content

        def replace(match: re.Match[str]) -> str:
            member = self._member(match)
            return token(member.id) if member is not None and member.id in ids else match[0]

        return self._pattern.sub(replace, content)


_inlines: dict[int, tuple[tuple[Member, ...], InlineMentions]] = {}
_inline_of_roster = _BySnapshot(InlineMentions, _inlines).of


def inline_mentions(members: Sequence[Member]) -> InlineMentions:
    """The finder for ``members``; a roster snapshot's (a tuple, as the roster cache keeps it)
    is built once per snapshot: its pattern cost more than the rest of a post's mention
    handling."""
    if isinstance(members, tuple):
        return _inline_of_roster(members)
    return InlineMentions(members)


def mentions_in_text(content: str, roster: Sequence[Member], sender_id: str) -> list[MentionRef]:
    """Participants a person named inline (``@handle`` or ``@Display Name``), never the sender."""
    if "@" not in content:  # every inline form starts with one
        return []
    return [
        MentionRef(id=m.id, handle=m.handle)
        for m in inline_mentions(roster).find(content)
        if m.id != sender_id
    ]


def normalise_content(
    content: str,
    mentions: Sequence[ResolvedMention],
    roster: Sequence[Member] | None = None,
) -> str:
    """Rewrite each inline form of a mentioned participant to ``@[[uuid]]`` and prepend a token
    per mention the text does not carry. With the ``roster``, a longer name of someone else
    (``@Bob Smith`` when only Bob is mentioned) is never cut short."""
    if "@" in content:  # every inline form starts with one
        inline = inline_mentions(roster if roster is not None else [m.member for m in mentions])
        content = inline.rewrite(content, {m.id for m in mentions})
    missing: list[str] = []  # (a loop: a comprehension is a call of its own)
    for m in mentions:
        if m.kind == "mention":  # ``m.routes``, without the property's call
            t = f"@[[{m.member.id}]]"  # ``token(m.id)``, as above
            if t not in content:
                missing.append(t)
    if not missing:
        return content
    return " ".join([*missing, content])
