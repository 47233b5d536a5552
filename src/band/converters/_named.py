"""The agent's name a history converter keeps, to tell the agent's own lines from others'."""

from __future__ import annotations

__all__ = ["AgentNamed"]


class AgentNamed:
    """``agent_name``, given at construction or later by ``set_agent_name`` (the runtime
    calls it once the agent's name is known)."""

    def __init__(self, agent_name: str = "") -> None:
        self.agent_name = agent_name

    def set_agent_name(self, name: str) -> None:
        self.agent_name = name
