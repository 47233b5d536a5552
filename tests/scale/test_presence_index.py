"""Cluster presence keeps, per principal, how many other nodes hold it, by differences as
node views are reloaded and dropped: always what a full recount of the views gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from band_server.realtime.hub import Hub
from band_server.realtime.redis_presence import ClusterPresence, _node_hash, _NodeView

NODES = ["n1", "n2", "n3"]
PRINCIPALS = [f"p{i}" for i in range(8)]

# (node, principals it now holds, as read: bytes from Redis, str too) or (node, None): gone
steps = st.lists(
    st.tuples(
        st.sampled_from(NODES),
        st.none()
        | st.frozensets(st.sampled_from(PRINCIPALS))
        | st.frozensets(st.sampled_from([p.encode() for p in PRINCIPALS])),
    ),
    max_size=30,
)


def recount(presence: ClusterPresence) -> dict[str, int]:
    counts: dict[str, int] = {}
    for view in presence._others.values():
        for held in view.principals:
            principal = held.decode() if isinstance(held, bytes) else held
            counts[principal] = counts.get(principal, 0) + 1
    return counts


@settings(max_examples=300, deadline=None)
@given(steps)
def test_counts_by_difference_equal_a_full_recount(
    changes: list[tuple[str, frozenset[str] | None]],
) -> None:
    presence = ClusterPresence(Hub(), "redis://127.0.0.1:1/0")
    for node, held in changes:
        if held is None:
            view = presence._others.pop(node, None)
            if view is not None:
                presence._hold(view, frozenset())
        else:
            presence._hold(presence._others.setdefault(node, _NodeView()), held)
        assert presence._remote == recount(presence)
        for principal in PRINCIPALS:
            assert presence.is_online(principal) == (principal in recount(presence))


def test_a_node_hash_as_read_gives_its_version_and_who_it_holds() -> None:
    raw = {b"~v": b"abc.7", b"p1": b"2", b"p2": b"0", b"p3": b"1"}
    assert _node_hash(raw) == ("abc.7", frozenset({b"p1", b"p3"}))
    assert _node_hash({"p1": "1", "~v": "x.1"}) == ("x.1", frozenset({"p1"}))
