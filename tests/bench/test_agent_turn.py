"""The agent-turn bench's agents answer every mention, and the floor's requests are accepted.

One short run per raw agent against a real platform subprocess: ``floor`` (the reply alone)
and ``floor-sdk`` (the requests our SDK sends a turn: the claim asked of the push, the keyed
reply with its ``turn_id``, ``/processed``). The raw agent exits on any refused request, so a
floor whose requests the platform stopped accepting shows here as missing replies. With
``--timeline``, the probes find the methods they wrap and every step of a turn is stamped.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import pytest
from bench.agent_turn import one_run, share_split

from bench import _timeline

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("kind", ["floor", "floor-sdk"])
def test_each_mention_is_answered(kind: str) -> None:
    args = argparse.Namespace(
        rooms=2, rate=20.0, seconds=1.0, profile=None, before=None, timeline=False, calls=False
    )
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


@pytest.mark.parametrize("kind", ["floor", "ours"])
def test_the_timeline_stamps_every_step(kind: str) -> None:
    args = argparse.Namespace(
        rooms=2, rate=10.0, seconds=2.0, profile=None, before=None, timeline=True, calls=False
    )
    row = one_run(kind, Path(sys.executable), args, 0)
    assert row["replied"] == row["sent"]
    timeline = row["timeline"]
    assert timeline["turns"] >= 5  # of 20: at 10/s most turns run alone, even on a slow host
    names = [name for _, side, name in _timeline.STEPS if kind == "ours" or side != "agent"]
    if kind == "floor":  # the raw agent stamps its frame and its request only
        names[6:6] = ["agent: push's frame", "agent: reply sent"]
    expected = [f"{a} -> {b}" for a, b in itertools.pairwise(names)]
    assert list(timeline["stages_ms"]) == expected
    assert all(value >= 0 for value in timeline["stages_ms"].values())


Stamp = tuple[float, str, str]


def _stamps(folder: Path, role: str, rows: list[Stamp]) -> None:
    (folder / f"{role}.1").write_text("".join(f"{at:.6f}\t{s}\t{t}\n" for at, s, t in rows))


def test_stages_keep_the_turns_alone_with_the_usual_steps(tmp_path: Path) -> None:
    server = ["http in", "routed", "commit", "committed", "written"]

    def turn(t0: float, token: str, agent: bool) -> tuple[list[Stamp], list[Stamp], list[Stamp]]:
        person = [(t0, "start", token), (t0 + 0.010, "reply", token)]
        steps = [(t0 + 0.001 * (i + 1), step, "") for i, step in enumerate(server)]
        steps += [(t0 + 0.007 + 0.0005 * i, step, "") for i, step in enumerate(server)]
        mine = [(t0 + 0.0061, "frame", ""), (t0 + 0.0065, "request", "")] if agent else []
        return person, steps, mine

    person: list[Stamp] = []
    srv: list[Stamp] = []
    agent: list[Stamp] = []
    for t0, token, has_agent in ((1.0, "a", True), (2.0, "b", True), (3.0, "c", False)):
        p, s, a = turn(t0, token, has_agent)
        person, srv, agent = person + p, srv + s, agent + a
    person += [(4.0, "start", "d"), (4.002, "start", "e"), (4.01, "reply", "d")]  # overlapped
    person += [(4.012, "reply", "e")]
    _stamps(tmp_path, "person", person)
    _stamps(tmp_path, "server", srv)
    _stamps(tmp_path, "agent", agent)
    result = _timeline.stages(tmp_path)
    assert result["turns"] == 2  # c lost its agent's stamps, d and e overlapped
    stages = result["stages_ms"]
    assert stages["person: mention sent -> server: mention in"] == pytest.approx(1.0)
    assert stages["server: push written -> agent: push's frame"] == pytest.approx(1.1)
    assert stages["agent: reply sent -> server: reply in"] == pytest.approx(0.5)
    assert sum(stages.values()) == pytest.approx(10.0)


def test_calls_count_the_functions_run_every_other_turn(tmp_path: Path) -> None:
    import cProfile

    from bench import _turn_calls

    def every_turn() -> int:
        return 1

    def now_and_then() -> int:
        return 2

    profile = cProfile.Profile()
    profile.enable()
    for turn in range(10):
        every_turn()
        if turn % 5 == 0:
            now_and_then()
    profile.disable()
    profile.dump_stats(str(tmp_path / "calls.prof"))
    calls = _turn_calls.summary(tmp_path / "calls.prof", turns=10)
    here = next(m for m in calls["top_modules"] if m.endswith("test_agent_turn.py"))
    assert calls["top_modules"][here] == 1  # every_turn only
    assert calls["calls_per_turn"] >= 1
    assert _turn_calls.summary(tmp_path / "missing.prof", turns=10) == {}
