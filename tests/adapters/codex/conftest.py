"""The real ``codex app-server`` for the Codex tests (``band serve`` comes from
``tests/adapters/conftest.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .codex_support import codex_binary


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return codex_binary()


@pytest.fixture(scope="session")
def codex_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Outside /tmp would be nicer for Codex (it warns about helper links there), but
    # tmp_path_factory keeps everything disposable.
    return tmp_path_factory.mktemp("codex-home")
