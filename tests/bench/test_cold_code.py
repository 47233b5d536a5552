"""The cold-code probe times every piece three ways and writes its table's rows."""

from __future__ import annotations

from bench.cold_code import measure, pieces


def test_every_piece_is_timed_hot_after_sleep_and_after_spin() -> None:
    rows = measure(gap_ms=0.5, rounds=3)
    assert [row["piece"] for row in rows] == list(pieces())
    for row in rows:
        assert row["hot_us"] > 0
        assert row["after_sleep_us"] > 0
        assert row["after_spin_us"] > 0
