"""Input models of the person-side agent tools (``HumanTools``)."""

from __future__ import annotations

from pydantic import Field

from ._base import ToolInput

__all__ = ["ListMyAgentsInput", "RegisterMyAgentInput"]


class ListMyAgentsInput(ToolInput):
    """List the agents you own."""

    page: int | None = Field(None, description="Page number (optional).")
    page_size: int | None = Field(None, description="Items per page (optional).")


class RegisterMyAgentInput(ToolInput):
    """Register a new remote agent you own.

    The answer carries the agent's API key, shown this once: keep it.
    """

    name: str = Field(..., description="The agent's name (required).")
    description: str = Field(..., description="What the agent does (required).")
