"""Shared by the Gemini and Google ADK adapter tests: the fake Gemini API on loopback, reached
the way a user points google-genai elsewhere (``GOOGLE_GEMINI_BASE_URL``), and one turn of
Alice speaking (with the room updates a turn may carry)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from band.core import SimpleAdapter
from band.testing import FakeAgentTools, FakeModel, fake_gemini_server

from .turn_support import alice_says

__all__ = ["gemini_api", "turn"]


@pytest.fixture
def gemini_api(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModel]:
    """The test's scripted model behind ``GOOGLE_GEMINI_BASE_URL`` (key ``fake-key``)."""
    fake = FakeModel()
    with fake_gemini_server(fake) as url:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", url)
        monkeypatch.setenv("GOOGLE_API_KEY", "fake-key")
        monkeypatch.delenv("GEMINI_API_KEY", raising=False)
        yield fake


async def turn(
    adapter: SimpleAdapter[Any],
    tools: FakeAgentTools,
    text: str,
    *,
    history: Any = None,
    participants: str | None = None,
    bootstrap: bool = False,
) -> None:
    """Alice says ``text`` in ``room-fake`` (the adapter already started)."""
    await adapter.on_message(
        alice_says(text),
        tools,
        [] if history is None else history,
        participants,
        None,
        is_session_bootstrap=bootstrap,
        room_id="room-fake",
    )
