"""Shared by the LangGraph and Pydantic AI adapter tests: the import gate and room driving.

In the main venv the frameworks are absent and their tests skip; their own venvs set
``BAND_REQUIRE_<NAME>=1`` (scripts/test-adapter langgraph|pydantic-ai) so a broken
install fails instead of skipping.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sdk"))

from runtime_support import Person, make_agent, until_status

from band.core import SimpleAdapter

__all__ = ["Person", "alice", "ask", "require", "running"]


@pytest.fixture
async def alice(live_server: Any, seeded: Any) -> AsyncIterator[Person]:
    """Alice, the seeded person, driving rooms over REST against the live platform."""
    headers = {"x-api-key": seeded.user_key}
    async with httpx.AsyncClient(base_url=live_server.url, headers=headers) as http:
        yield Person(http, seeded.user_id)


def require(module: str, env: str) -> None:
    """Skip the calling test module without ``module``, unless ``env`` is set to 1."""
    if os.environ.get(env) == "1":
        importlib.import_module(module)
    else:
        pytest.importorskip(module)


@asynccontextmanager
async def running(live: Any, seeded: Any, adapter: SimpleAdapter[Any]) -> AsyncIterator[None]:
    agent = make_agent(live, seeded.agent_id, seeded.agent_key, adapter)
    await agent.start()
    try:
        yield
    finally:
        await agent.stop(5)


async def ask(person: Person, room: str, text: str, agent_id: str) -> None:
    message_id = await person.say(room, text, agent_id)
    await until_status(person, room, message_id, agent_id, "processed")
