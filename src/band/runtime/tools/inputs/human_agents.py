"""Input models of the person-side agent tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import HumanPagedInput, ToolInput

__all__ = ["ListMyAgentsInput", "RegisterMyAgentInput"]


class ListMyAgentsInput(HumanPagedInput):
    """List the agents you own."""


class RegisterMyAgentInput(ToolInput):
    """Register a new remote agent you own.

    The answer carries the agent's API key, shown this once: keep it.
    """

    name: str = Field(..., description="The agent's name (required).")
    description: str = Field(..., description="What the agent does (required).")
