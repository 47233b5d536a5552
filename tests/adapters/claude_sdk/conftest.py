"""The real ``claude`` CLI for the Claude tests (``band serve`` comes from the parent conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .claude_support import claude_binary


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return claude_binary()


@pytest.fixture(scope="session")
def claude_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("claude-home")
