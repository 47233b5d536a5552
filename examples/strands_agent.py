"""A Band agent on Strands Agents (``pip install 'openband[strands]'``).

The model is any OpenAI-compatible endpoint (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``OPENAI_MODEL``); a Bedrock model id works too: ``StrandsAdapterConfig(model="...")``.
A custom tool declares what it does to the turn: opening a ticket settles it.

    python strands_agent.py      # reads agent_config.yaml's "my_agent" (band agents create)
"""

from __future__ import annotations

import asyncio
import os

import strands
from strands.models.openai import OpenAIModel

from band import Agent
from band.adapters import StrandsAdapter, StrandsAdapterConfig
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect


@strands.tool
@declares_turn_effect(TurnEffect.ACT)
def open_ticket(summary: str) -> str:
    """Open a support ticket for the person who asked."""
    return f"ticket opened: {summary}"


def build_adapter() -> StrandsAdapter:
    client_args = {"api_key": os.environ.get("OPENAI_API_KEY", ""), "max_retries": 1}
    if os.environ.get("OPENAI_BASE_URL"):
        client_args["base_url"] = os.environ["OPENAI_BASE_URL"]
    model = OpenAIModel(
        client_args=client_args, model_id=os.environ.get("OPENAI_MODEL", "gpt-5.4-mini")
    )
    config = StrandsAdapterConfig(custom_section="Open a ticket when something is broken.")
    return StrandsAdapter(config, llm=model, additional_tools=[open_ticket])


if __name__ == "__main__":
    asyncio.run(Agent.from_config("my_agent", adapter=build_adapter()).run())
