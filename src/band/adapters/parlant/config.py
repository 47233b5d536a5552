"""``ParlantAdapterConfig``: what shapes the Parlant agent and the reply wait."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import PositiveFloat

from band.core.adapterconfig import BaseAdapterConfig

__all__ = ["ConfigureCallback", "ParlantAdapterConfig"]

# ``async def configure(server, parlant_agent) -> None``; Parlant objects are untyped here.
ConfigureCallback = Callable[[Any, Any], Awaitable[None]]


class ParlantAdapterConfig(BaseAdapterConfig):
    """Settings of a ``ParlantAdapter`` (frozen; unknown fields are rejected).

    ``name``/``description`` default to the Band agent's own. ``system_prompt`` replaces
    the description of the agent the adapter creates; ``custom_section`` is appended to it.
    ``response_timeout`` bounds the wait for one reply, in ``response_poll`` windows.
    """

    name: str | None = None
    description: str | None = None
    custom_section: str | None = None
    system_prompt: str | None = None
    response_timeout: PositiveFloat = 300.0
    response_poll: PositiveFloat = 30.0
