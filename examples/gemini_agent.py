"""A Band agent on Gemini through google-genai (``pip install 'openband[gemini]'``).

The key comes from ``GOOGLE_API_KEY`` (or ``GEMINI_API_KEY``); ``GOOGLE_GEMINI_BASE_URL``
points the client at another endpoint, such as ``band.testing``'s fake Gemini API. The
model answers through ``band_send_message``; a custom tool declares what it does to the
turn: booking a table settles it, with or without a reply.

    python gemini_agent.py      # reads agent_config.yaml's "my_agent" (band agents create)
"""

from __future__ import annotations

import asyncio
import os

from pydantic import BaseModel

from band import Agent
from band.adapters import GeminiAdapter, GeminiAdapterConfig
from band.core.types import Capability
from band.runtime.custom_tools import declares_turn_effect
from band.runtime.tools import TurnEffect


class BookTable(BaseModel):
    """Book a table at the restaurant for the person who asked."""

    name: str
    people: int


@declares_turn_effect(TurnEffect.ACT)
def book_table(args: BookTable) -> str:
    return f"table for {args.people} booked under {args.name}"


def build_adapter() -> GeminiAdapter:
    config = GeminiAdapterConfig(
        model=os.environ.get("GEMINI_MODEL", "gemini-3.8-flash"),
        custom_section="You take restaurant bookings. Book a table when asked to.",
    )
    return GeminiAdapter(
        config, additional_tools=[(BookTable, book_table)], capabilities=Capability.MEMORY
    )


if __name__ == "__main__":
    asyncio.run(Agent.from_config("my_agent", adapter=build_adapter()).run())
