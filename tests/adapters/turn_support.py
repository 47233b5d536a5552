"""One adapter turn without a platform: a message from Alice, ``FakeAgentTools`` for the room.

For framework adapter tests that pin what a turn does (messages posted, events reported,
the turn's verdict) where the live platform adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from band.core import SimpleAdapter
from band.core.types import PlatformMessage
from band.testing import FakeAgentTools, FakeModel, fake_openai_server

__all__ = [
    "ALICE",
    "alice_says",
    "base_url",
    "example_answers",
    "fake",
    "load_example",
    "room_tools",
    "turn",
]


@pytest.fixture
def fake() -> FakeModel:
    """The scripted model of the test."""
    return FakeModel()


@pytest.fixture
def base_url(fake: FakeModel) -> Iterator[str]:
    """An OpenAI base URL serving ``fake`` over loopback."""
    with fake_openai_server(fake) as url:
        yield url


ALICE = {"id": "user-alice", "name": "Alice", "handle": "alice", "type": "User"}


def room_tools(**kwargs: Any) -> FakeAgentTools:
    """Room tools with Alice in the room (and whatever else ``kwargs`` set)."""
    kwargs.setdefault("participants", [ALICE])
    return FakeAgentTools(agent_id="agent-fake", **kwargs)


def alice_says(text: str, message_id: str = "m1") -> PlatformMessage:
    return PlatformMessage(
        id=message_id,
        room_id="room-fake",
        content=text,
        sender_id=ALICE["id"],
        sender_type="User",
        sender_name="Alice",
        message_type="text",
        metadata={},
        created_at=datetime.now(UTC),
    )


async def turn(
    adapter: SimpleAdapter[Any],
    tools: FakeAgentTools,
    text: str,
    *,
    history: Any = None,
    bootstrap: bool = True,
) -> None:
    """Start ``adapter`` (once) and run one turn of Alice saying ``text``."""
    if not getattr(adapter, "_turn_support_started", False):
        await adapter.on_started("Bot", "A test bot")
        adapter._turn_support_started = True  # type: ignore[attr-defined]
    if history is None:  # an empty room, as the adapter's converter renders it
        converter = adapter.history_converter
        history = converter.convert([]) if converter is not None else []
    await adapter.on_message(
        alice_says(text),
        tools,
        history,
        None,
        None,
        is_session_bootstrap=bootstrap,
        room_id="room-fake",
    )


def load_example(name: str) -> Any:
    """``examples/<name>.py`` as a module (its ``__main__`` block does not run)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"example_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def example_answers(
    name: str, base_url: str, model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``examples/<name>.py``'s adapter, on the fake model, answers Alice's mention."""
    monkeypatch.setenv("OPENAI_BASE_URL", base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "fake")
    monkeypatch.setenv("OPENAI_MODEL", model)
    tools = room_tools()
    await turn(load_example(name).build_adapter(), tools, "hello example")
    assert len(tools.chat) == 1 and "You said: hello example" in tools.chat[0]
