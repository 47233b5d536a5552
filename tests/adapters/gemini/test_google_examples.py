"""examples/gemini_agent.py and examples/google_adk_agent.py on the live platform and the fake
Gemini API (``GOOGLE_GEMINI_BASE_URL``): the custom tool books a table and settles the turn.

The ADK example runs where google-adk is installed (scripts/test-adapter google-adk and
google-adk-1.19 run this folder too).
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from adapters.framework_support import Person, ask, require, running
from adapters.turn_support import load_example

require("google.genai", "BAND_REQUIRE_GEMINI")

from band.testing import FakeModel, fake_gemini_server  # noqa: E402

pytestmark = pytest.mark.timeout(60)
HAS_ADK = importlib.util.find_spec("google.adk") is not None


@pytest.mark.parametrize(
    "example",
    [
        "gemini_agent",
        pytest.param(
            "google_adk_agent", marks=pytest.mark.skipif(not HAS_ADK, reason="no google-adk")
        ),
    ],
)
async def test_the_example_books_a_table_without_a_reply(
    example: str, live_server: Any, seeded: Any, alice: Person, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeModel().call_tool("booktable", {"name": "Alice", "people": 2}).reply("")
    room = await alice.create_room("Bookings", seeded.agent_id)
    with fake_gemini_server(fake) as url:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", url)
        monkeypatch.setenv("GOOGLE_API_KEY", "fake")
        adapter = load_example(example).build_adapter()
        async with running(live_server, seeded, adapter):
            await ask(alice, room, "a table for two, please", seeded.agent_id)
            results = await alice.events(room, "tool_result")
            errors = await alice.events(room, "error")
    assert json.loads(results[0]["content"])["output"] == "table for 2 booked under Alice"
    assert errors == []
    assert "You take restaurant bookings" in fake.requests[0].system
