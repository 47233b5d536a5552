"""A Band agent on Google ADK (``pip install 'openband[google_adk]'``): each message runs a
fresh ADK agent (Gemini) with the room's recent conversation replayed as a transcript.

The key comes from ``GOOGLE_API_KEY``; ``GOOGLE_GEMINI_BASE_URL`` points ADK's Gemini
client at another endpoint, such as ``band.testing``'s fake Gemini API. A custom tool
declares what it does to the turn: booking a table settles it, with or without a reply.

    python google_adk_agent.py      # reads agent_config.yaml's "my_agent" (band agents create)
"""

from __future__ import annotations

import asyncio
import os

from pydantic import BaseModel

from band import Agent
from band.adapters import GoogleADKAdapter, GoogleADKAdapterConfig
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect


class BookTable(BaseModel):
    """Book a table at the restaurant for the person who asked."""

    name: str
    people: int


@declares_turn_effect(TurnEffect.ACT)
def book_table(args: BookTable) -> str:
    return f"table for {args.people} booked under {args.name}"


def build_adapter() -> GoogleADKAdapter:
    config = GoogleADKAdapterConfig(
        model=os.environ.get("GEMINI_MODEL", "gemini-3.8-flash"),
        custom_section="You take restaurant bookings. Book a table when asked to.",
        max_history_messages=30,
    )
    return GoogleADKAdapter(config, additional_tools=[(BookTable, book_table)])


if __name__ == "__main__":
    asyncio.run(Agent.from_config("my_agent", adapter=build_adapter()).run())
