"""``Agent``: the host that connects an adapter to Band (see ``band.runtime.agent``)."""

from band.runtime.agent import Agent, CleanupPhase, TimeoutNotSet, running_agents

__all__ = ["Agent", "CleanupPhase", "TimeoutNotSet", "running_agents"]
