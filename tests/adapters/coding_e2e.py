"""What the coding-agent end-to-end tests (Codex, ACP) share: the proof-command model
script, the fake model endpoint, and starting the agent under test against ``band serve``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
from runtime_support import make_agent

from band.core import SimpleAdapter
from band.testing import FakeModel, ModelRequest, Reply, ToolCall, default_policy, serve_fake_models

from .band_serve import BandServe

__all__ = ["PROOF", "AgentStarter", "agent_starter", "model_url", "proof_policy"]

A = TypeVar("A", bound=SimpleAdapter[Any])
PROOF = "echo band-proof > proof.txt && cat proof.txt"
AgentStarter = Callable[..., AbstractAsyncContextManager[Any]]


def proof_policy(
    command: ToolCall, last_call: Callable[[ModelRequest], str | None]
) -> Callable[[ModelRequest], Reply]:
    """A model that runs ``command`` when asked to "run the proof command", then reports
    (through ``band_send_message``) whether it printed ``band-proof``; otherwise it answers
    like :func:`default_policy`. ``last_call`` reads the latest tool call's name."""

    def policy(request: ModelRequest) -> Reply:
        last = request.last
        if last is not None and last.role == "tool":
            if last_call(request) != command.name:
                return Reply(text="")
            first = (last.text.strip().splitlines() or [""])[0][:120]
            content = (
                "I ran the proof command; it printed band-proof."
                if "band-proof" in last.text
                else f"I did not run the proof command: {first}"
            )
            call = ToolCall("band_send_message", {"content": content, "mentions": ["alice"]})
            return Reply(tool_calls=(call,))
        if last is not None and "run the proof command" in last.text:
            return Reply(tool_calls=(command,))
        outcome = default_policy(request)
        assert isinstance(outcome, Reply)
        return outcome

    return policy


@pytest.fixture
def model_url(fake: FakeModel) -> Iterator[str]:
    """The OpenAI-style base URL (ending in ``/v1``) of the module's ``fake`` model."""
    with serve_fake_models(fake) as server:
        yield server.openai_base_url


def agent_starter(serve: BandServe, build: Callable[..., A]) -> AgentStarter:
    """``async with start(**options) as adapter``: ``build(**options)`` runs as the seeded
    agent against ``serve`` until the block ends."""

    @asynccontextmanager
    async def start(**options: Any) -> AsyncIterator[A]:
        adapter = build(**options)
        world = serve.world
        agent = make_agent(serve, world.agent_id, world.agent_key, adapter)
        await agent.start()
        try:
            yield adapter
        finally:
            await agent.stop(10)

    return start


def workspaces(root: Path) -> Callable[[str], Path]:
    """``workspace_for_room`` putting each room's folder under ``root``."""
    return lambda room: root / room
