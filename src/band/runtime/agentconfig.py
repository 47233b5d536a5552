"""``AgentConfig``: the host-level switches of an ``Agent``."""

from band.runtime.config import AgentConfig

__all__ = ["AgentConfig"]
