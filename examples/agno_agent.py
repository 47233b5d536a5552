"""A Band agent on an Agno agent you build (``pip install 'openband[agno]'``).

The adapter takes the agent over: Band's prompt goes before its ``description`` and the
room's Band tools join its own tools on every run. The model is any OpenAI-compatible
endpoint (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``).

    python agno_agent.py         # reads agent_config.yaml's "my_agent" (band agents create)
"""

from __future__ import annotations

import asyncio
import os

from agno.agent import Agent as AgnoAgent
from agno.models.openai import OpenAIChat

from band import Agent
from band.adapters import AgnoAdapter
from band.core.types import Emit


def word_count(text: str) -> str:
    """Count the words of a text."""
    return str(len(text.split()))


def build_adapter() -> AgnoAdapter:
    model = OpenAIChat(
        id=os.environ.get("OPENAI_MODEL", "gpt-5.4-mini"),
        api_key=os.environ.get("OPENAI_API_KEY"),
        base_url=os.environ.get("OPENAI_BASE_URL"),
    )
    agno_agent = AgnoAgent(
        model=model,
        tools=[word_count],
        instructions="Be brief. Use word_count when asked about lengths.",
    )
    # Reasoning (reasoning_content) is posted as a thought; tool calls as events.
    return AgnoAdapter(agent=agno_agent, emit=[Emit.TOOL_CALLS, Emit.THOUGHTS, Emit.USAGE])


if __name__ == "__main__":
    asyncio.run(Agent.from_config("my_agent", adapter=build_adapter()).run())
