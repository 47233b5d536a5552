"""The lint group's cycle contract (``scripts/import_cycles.py``): it finds a cycle made only
of ``TYPE_CHECKING`` imports, and the SDK, the wire package and the server have none."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from scripts.import_cycles import cycles, graph_cycles


def test_groups_of_modules_that_reach_one_another_are_cycles() -> None:
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e2"}, "e2": set()}
    assert cycles(imports) == [["a", "b", "c"]]


def test_a_type_checking_import_back_is_a_cycle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "cyclepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "types.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .protocols import P\n"
    )
    (package / "protocols.py").write_text("from .types import T\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("cyclepkg", exclude_type_checking_imports=False, cache_dir=None)
    assert graph_cycles(graph, ["cyclepkg"]) == [["cyclepkg.protocols", "cyclepkg.types"]]


def test_the_sdk_the_wire_package_and_the_server_have_no_import_cycle() -> None:
    packages = ["band_protocol", "band", "band_sdk_core", "band_server"]
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=False, cache_dir=None)
    assert graph_cycles(graph, packages) == []
