"""One real ``opencode serve`` for the OpenCode tests, its model swapped per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from band.testing import FakeModel

from .opencode_support import OpencodeServe, opencode_binary, running_opencode


@pytest.fixture(scope="session")
def opencode_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpencodeServe]:
    with running_opencode(opencode_binary(), tmp_path_factory.mktemp("opencode")) as serve:
        yield serve


@pytest.fixture
def opencode(opencode_serve: OpencodeServe, fake: FakeModel) -> Iterator[OpencodeServe]:
    """The server, answering from this test's ``fake``; the project folder emptied after."""
    opencode_serve.models.use(fake)
    yield opencode_serve
    for item in opencode_serve.folder.iterdir():
        if item.is_file():
            item.unlink()
