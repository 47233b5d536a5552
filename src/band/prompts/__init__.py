"""Ready-made role prompts (planner, reviewer) to pass as an adapter's ``custom_section``."""

from __future__ import annotations

from .roles import get_available_roles, get_role_prompt, load_role_prompt

__all__ = ["get_available_roles", "get_role_prompt", "load_role_prompt"]
