"""Mention resolution and content normalisation, without HTTP."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from agent_testkit import make_world, post, room_log

from band.protocol.messages import MentionRef
from band_server.context import Platform
from band_server.errors import ValidationFailed
from band_server.services.messages.mentions import (
    NOT_IN_ROOM,
    ResolvedMention,
    normalise_content,
    resolve_mentions,
)
from band_server.services.rooms.membership import Member
from band_server.store.models import Participant
from conftest import Seeded

A = "aaaaaaaa-0000-0000-0000-000000000001"
B = "bbbbbbbb-0000-0000-0000-000000000001"
C = "cccccccc-0000-0000-0000-000000000001"


def member(pid: str, name: str, handle: str, ptype: str = "User") -> Member:
    return Member(Participant(participant_id=pid, participant_type=ptype), name, handle, None)


ROSTER = [
    member(A, "Echo", "alice/echo", "Agent"),
    member(B, "Alice", "alice"),
    member(C, "Mary Jane", "mj"),
]


def resolved(*ids: str) -> list[ResolvedMention]:
    by_id = {m.id: m for m in ROSTER}
    return [ResolvedMention(by_id[i]) for i in ids]


@pytest.mark.parametrize(
    ("content", "ids", "expected"),
    [
        ("hello agent", [A], f"@[[{A}]] hello agent"),
        ("Hi back!", [B, A], f"@[[{B}]] @[[{A}]] Hi back!"),
        ("@alice/echo do it", [A], f"@[[{A}]] do it"),
        ("ask @ALICE/ECHO.", [A], f"ask @[[{A}]]."),
        # @alice must not match inside @alice/echo or an e-mail address
        ("@alice/echo ping", [B], f"@[[{B}]] @alice/echo ping"),
        ("mail bob@alice.dev", [B], f"@[[{B}]] mail bob@alice.dev"),
        ("@alice and @alice again", [B], f"@[[{B}]] and @[[{B}]] again"),
        (f"already @[[{A}]] here", [A], f"already @[[{A}]] here"),
        ("@alicex is someone else", [B], f"@[[{B}]] @alicex is someone else"),
    ],
)
def test_normalise_content(content: str, ids: list[str], expected: str) -> None:
    assert normalise_content(content, resolved(*ids)) == expected


def test_reference_is_rewritten_inline_but_never_prepended() -> None:
    ref = [ResolvedMention(ROSTER[1], "reference")]
    assert normalise_content("see @alice", ref) == f"see @[[{B}]]"
    assert normalise_content("see her", ref) == "see her"
    assert ref[0].routes is False
    assert ref[0].metadata()["kind"] == "reference"


def test_resolve_by_id_handle_and_name() -> None:
    refs = [
        MentionRef(id=A, handle="ignored-when-id-given"),
        MentionRef(handle="@Alice"),
        MentionRef(name="mary-jane"),
    ]
    out = resolve_mentions("someone-else", ROSTER, refs)
    assert [m.id for m in out] == [A, B, C]
    assert out[0].metadata() == {
        "id": A,
        "handle": "alice/echo",
        "name": "Echo",
        "username": "alice/echo",
    }


def test_resolve_drops_self_and_merges_duplicates() -> None:
    refs = [
        MentionRef(id=A),
        MentionRef(id=B, kind="reference"),
        MentionRef(handle="alice"),
        MentionRef(id=B),
    ]
    out = resolve_mentions(A, ROSTER, refs)
    assert [(m.id, m.kind) for m in out] == [(B, "mention")]


def test_unresolvable_mentions_list_every_pointer() -> None:
    refs = [MentionRef(id=A), MentionRef(handle="ghost"), MentionRef(), MentionRef(id=" ")]
    with pytest.raises(ValidationFailed) as err:
        resolve_mentions(B, ROSTER, refs)
    assert err.value.message == NOT_IN_ROOM
    assert set(err.value.details or {}) == {
        "/message/mentions/1",
        "/message/mentions/2",
        "/message/mentions/3",
    }


async def test_concurrent_posts_get_distinct_sequence_numbers(
    client: httpx.AsyncClient, platform: Platform, seeded: Seeded
) -> None:
    w = await make_world(platform, seeded)
    results = await asyncio.gather(
        *(post(client, w.echo_key, w.url(), f"n{i}", {"id": w.alice}) for i in range(8))
    )
    assert all(r.status_code == 201 for r in results)
    log = await room_log(platform, w.room_id)
    assert [m.seq for m in log.items] == list(range(1, 9))
