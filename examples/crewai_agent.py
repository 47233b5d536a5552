"""A Band agent on a CrewAI agent (``pip install 'openband[crewai]'``).

CrewAI builds its LLM from the model name; keys and ``OPENAI_BASE_URL`` come from the
environment. Role, goal and backstory shape the agent; Band's prompt is appended to the
backstory.

    OPENAI_MODEL=openai/gpt-5.4-mini python crewai_agent.py   # agent_config.yaml's "my_agent"
"""

from __future__ import annotations

import asyncio
import os

from band import Agent
from band.adapters import CrewAIAdapter, CrewAIAdapterConfig


def build_adapter() -> CrewAIAdapter:
    config = CrewAIAdapterConfig(
        model=os.environ.get("OPENAI_MODEL", "openai/gpt-5.4-mini"),
        role="Research assistant",
        goal="Answer questions in the room accurately and briefly",
        backstory="A careful researcher who says when something is unknown.",
        max_iter=8,
    )
    return CrewAIAdapter(config)


if __name__ == "__main__":
    asyncio.run(Agent.from_config("my_agent", adapter=build_adapter()).run())
