"""A roster snapshot's mention index is built once; a member's id and type are read once.

The roster cache keeps each room's members as a tuple; a post resolves its mentions against
an index of that tuple (by id, handle and name) built on its first post, and reads each
member's id and type from the member itself, not through the participant's ORM attributes.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from band.protocol.messages import MentionRef
from band_server.services.messages import mentions
from band_server.services.messages.mentions import resolve_mentions
from band_server.services.rooms.membership import Member
from band_server.store.models import Participant

A = "aaaaaaaa-0000-0000-0000-00000000000a"
B = "bbbbbbbb-0000-0000-0000-00000000000b"
C = "cccccccc-0000-0000-0000-00000000000c"


def member(pid: str, name: str, handle: str, ptype: str = "User") -> Member:
    return Member(Participant(participant_id=pid, participant_type=ptype), name, handle, None)


def refs() -> list[MentionRef]:
    return [
        MentionRef(id=A),
        MentionRef(handle="@Bob"),
        MentionRef(name="Mary Jane", kind="reference"),
        MentionRef(name="mary-jane"),
    ]


def test_a_snapshot_index_is_built_once_and_resolves_as_a_list_does() -> None:
    roster = (
        member(A, "Echo", "echo", "Agent"),
        member(B, "Bob", "bob"),
        member(C, "Mary Jane", "mj"),
    )
    mentions._indexes.clear()
    first = resolve_mentions("someone-else", roster, refs())
    index = mentions._index_of_roster(roster)
    again = resolve_mentions("someone-else", roster, refs())
    assert mentions._index_of_roster(roster) is index  # built once for this snapshot
    assert list(mentions._indexes) == [id(roster)]
    from_list = resolve_mentions("someone-else", list(roster), refs())
    assert first == again == from_list
    assert [(m.id, m.kind) for m in first] == [(A, "mention"), (B, "mention"), (C, "mention")]


def test_another_snapshot_gets_its_own_index() -> None:
    """A refreshed roster (a new tuple: someone joined) is indexed anew."""
    old = (member(A, "Echo", "echo", "Agent"),)
    new = (*old, member(B, "Bob", "bob"))
    assert [m.id for m in resolve_mentions("x", old, [MentionRef(id=A)])] == [A]
    assert [m.id for m in resolve_mentions("x", new, [MentionRef(handle="bob")])] == [B]


def test_a_members_identity_is_its_own_attribute() -> None:
    part = Participant(participant_id=A, participant_type="Agent")
    m = Member(part, "Echo", "echo", None, "owner")
    assert vars(m)["id"] == A and vars(m)["type"] == "Agent"
    assert not isinstance(Member.__dict__.get("id"), property)
    # Equality and hashing are the member's fields, as before (the identity is derived).
    twin = Member(part, "Echo", "echo", None, "owner")
    assert m == twin and hash(m) == hash(twin)


def test_an_equal_roster_that_is_another_snapshot_is_indexed_on_its_own() -> None:
    """Snapshots are told apart by identity (hashing one hashed every member, every post):
    an equal tuple read later gets an index of its own, which resolves the same."""
    roster = (member(A, "Echo", "echo", "Agent"), member(B, "Bob", "bob"))
    twin = tuple(roster)[:1] + tuple(roster)[1:]
    assert twin == roster and twin is not roster
    assert mentions._index_of_roster(roster) is not mentions._index_of_roster(twin)
    assert mentions.inline_mentions(roster) is mentions.inline_mentions(roster)
    assert mentions.inline_mentions(roster) is not mentions.inline_mentions(twin)
    assert resolve_mentions("x", roster, refs()[:2]) == resolve_mentions("x", twin, refs()[:2])
    text = "hi @echo and @Bob"
    assert mentions.mentions_in_text(text, roster, "x") == mentions.mentions_in_text(
        text, twin, "x"
    )


def test_the_caches_stay_bounded() -> None:
    mentions._indexes.clear()
    kept = [(member(A, f"Echo {i}", f"echo{i}", "Agent"),) for i in range(mentions._SNAPSHOTS + 3)]
    for roster in kept:
        mentions._index_of_roster(roster)
    assert len(mentions._indexes) <= mentions._SNAPSHOTS


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="@ab Echo-Bobmj.\n", max_size=30))
def test_text_without_an_at_sign_skips_the_pattern_and_finds_the_same(content: str) -> None:
    """Every inline form starts with ``@``: the finder's shortcut for text without one gives
    what the pattern itself gives."""
    roster = (member(A, "Echo", "echo", "Agent"), member(B, "Bob", "bob"), member(C, "M J", "mj"))
    inline = mentions.inline_mentions(roster)
    pattern = inline._pattern
    assert pattern is not None
    by_pattern: dict[str, Member] = {}
    for match in pattern.finditer(content):
        found = inline._member(match)
        if found is not None:
            by_pattern.setdefault(found.id, found)
    assert inline.find(content) == list(by_pattern.values())
    ids = {A, B, C}
    assert inline.rewrite(content, ids) == pattern.sub(
        lambda m: mentions.token(inline._member(m).id) if inline._member(m) else m[0], content
    )
