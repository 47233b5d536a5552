"""The internet-scale simulator (``bench/scaling_sim.py``) keeps running on the benchmarks'
JSON: it reads each constant from the file a benchmark writes (or says it used the default),
prints its table and writes its JSON, and its plan moves the way the constants say."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import scaling_sim


def _results(tmp_path: Path, *, pg_capacity: float = 5000.0) -> Path:
    """The files the benchmarks write, in their shapes, with round figures."""
    results = tmp_path / "results"
    results.mkdir()
    summary = {
        "floor": {"200": {"server_cpu_ms_per_msg": 0.3}},
        "band 1 node": {
            "100": {"server_cpu_ms_per_msg": 1.2},
            "200": {"server_cpu_ms_per_msg": 1.0},
        },
        "band 3 nodes": {
            "100": {"server_cpu_ms_per_msg": 1.5},
            "200": {"server_cpu_ms_per_msg": 1.1},
        },
    }
    (results / "mention_latency-postgres-3nodes.json").write_text(json.dumps({"summary": summary}))
    row = {"target": "band", "phase": "paced", "connected": 19_000, "kib_per_socket": 19.5}
    row.update(idle_cpu_pct_of_core=3.8, server_cpu_ms_per_connect=0.7)
    floor_row = dict(row, target="floor", kib_per_socket=15.0)
    (results / "idle_sockets.json").write_text(json.dumps({"rows": [floor_row, row]}))
    costs = {
        "band": {
            "pg_per_msg": {
                "xact_commit": 3.0,
                "tup_inserted": 4.0,
                "tup_updated": 2.0,
                "tup_deleted": 0.0,
                "wal": 5000.0,
            },
            "redis_per_msg": {"publish": 1.0},
        },
        "capacity": {"pg_durable_commits_per_s": pg_capacity, "redis_publish_per_s": 500_000},
    }
    (results / "cluster_costs.json").write_text(json.dumps(costs))
    return results


def test_constants_come_from_the_benchmarks_files(tmp_path: Path) -> None:
    c = scaling_sim.load_constants(_results(tmp_path))
    assert c["cpu_ms_per_msg"].value == 1.0  # the highest rate's, one node
    assert c["cluster_cpu_ratio"].value == pytest.approx(1.1)
    assert "mention_latency-postgres-3nodes.json" in c["cluster_cpu_ratio"].source
    assert c["kib_per_socket"].value == 19.5  # the platform's row, not the floor's
    assert c["idle_cpu_pct_per_10k"].value == pytest.approx(2.0)
    assert (c["pg_commits_per_msg"].value, c["pg_rows_per_msg"].value) == (3.0, 6.0)
    assert c["redis_publish_per_msg"].value == 1.0
    assert c["pg_commits_capacity"].source.startswith("cluster_costs.json")


def test_without_results_every_constant_is_a_recorded_default(tmp_path: Path) -> None:
    c = scaling_sim.load_constants(tmp_path / "nothing-here")
    assert {k: v.value for k, v in c.items()} == {
        k: v.value for k, v in scaling_sim.DEFAULTS.items()
    }


def test_the_run_prints_its_table_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_file = tmp_path / "sim.json"
    argv = ["--results", str(_results(tmp_path)), "--out", str(out_file), "--scale", "1,10"]
    out: dict[str, Any] = scaling_sim.main(argv)
    printed = capsys.readouterr().out
    assert "PostgreSQL primaries" in printed and "first shared bottleneck" in printed
    assert json.loads(out_file.read_text()) == out
    one, ten = (r["plan"] for r in out["runs"])
    assert one["nodes"] >= 2 and ten["nodes"] > one["nodes"]
    # 20,000 mentions/s at 3 commits each on a 5,000/s primary: PostgreSQL runs out first.
    assert one["first_bottleneck"] == "PostgreSQL commits (one primary)"
    assert one["pg_commits_per_s"] == 60_000 and one["pg_primaries"] == 20
    assert one["sockets_per_node"] * one["nodes"] >= 110_000


def test_a_primary_that_keeps_up_moves_the_bottleneck(tmp_path: Path) -> None:
    results = _results(tmp_path, pg_capacity=10_000_000)
    out = scaling_sim.main(["--results", str(results), "--out", str(tmp_path / "o.json")])
    one = out["runs"][0]["plan"]
    assert one["pg_primaries"] == 1
    assert one["first_bottleneck"] != "PostgreSQL commits (one primary)"
