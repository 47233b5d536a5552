"""The agent-turn bench's agents answer every mention, and the floor's requests are accepted.

One short run per raw agent against a real platform subprocess: ``floor`` (the reply alone)
and ``floor-sdk`` (the requests our SDK sends a turn: the claim asked of the push, the keyed
reply with its ``turn_id``, ``/processed``). The raw agent exits on any refused request, so a
floor whose requests the platform stopped accepting shows here as missing replies.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from bench.agent_turn import one_run, share_split

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("kind", ["floor", "floor-sdk"])
def test_each_mention_is_answered(kind: str) -> None:
    args = argparse.Namespace(rooms=2, rate=20.0, seconds=1.0, profile=None, before=None)
    row = one_run(kind, Path(sys.executable), args, 0)
    assert row["sent"] >= 15
    assert row["replied"] == row["sent"]
    assert row["errors"] == 0
    assert row["from_start_p50_ms"] is not None


def test_the_split_needs_all_three_agents() -> None:
    def at(p50: float) -> dict[str, float]:
        return {"from_start_p50_ms": p50}

    assert share_split({"floor": at(3.0), "ours": at(4.0)}) == {}
    assert share_split({"floor": at(3.0), "floor-sdk": at(3.25), "ours": at(4.0)}) == {
        "sdk_requests_cost_platform_p50_ms": 0.25,
        "sdk_code_costs_p50_ms": 0.75,
    }
