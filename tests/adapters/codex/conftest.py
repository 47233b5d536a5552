"""The real ``codex app-server`` for the Codex tests (``band serve`` comes from
``tests/adapters/band_serve.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ..band_serve import alice, band_serve, room
from .codex_support import codex_binary

__all__ = ["alice", "band_serve", "room"]


@pytest.fixture(scope="module")
def codex_bin() -> Path:
    return codex_binary()


@pytest.fixture(scope="module")
def codex_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Outside /tmp would be nicer for Codex (it warns about helper links there), but
    # tmp_path_factory keeps everything disposable.
    return tmp_path_factory.mktemp("codex-home")
