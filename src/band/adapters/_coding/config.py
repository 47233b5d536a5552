"""``CodingAgentConfig``: the settings the ACP and Codex adapters share, with one default.

Where the room's agent works (``cwd``), Band's prompt (``system_prompt`` replaces it,
``custom_section`` is appended), the model and reasoning effort, how long a room approval
waits and what applies after (``approval_wait_timeout_s``, ``approval_timeout_decision``),
how many room messages a new session is given (``max_history_messages``), and how long a
cancelled turn may take to end (``turn_settle_timeout_s``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import PositiveFloat, PositiveInt

from band.core.adapterconfig import BaseAdapterConfig
from band.core.turn_lifecycle import TURN_SETTLE_GRACE_S, TurnSettleTimeout

from .approvals import Decision

__all__ = ["CodingAgentConfig"]


class CodingAgentConfig(BaseAdapterConfig):
    """The shared settings (frozen, unknown fields rejected); see the module docstring."""

    cwd: str | None = None
    system_prompt: str | None = None
    custom_section: str = ""
    model: str | None = None
    reasoning_effort: str | None = None
    approval_wait_timeout_s: PositiveFloat = 300.0
    approval_timeout_decision: Literal[Decision.ACCEPT, Decision.DECLINE] = Decision.DECLINE
    max_history_messages: PositiveInt = 50
    turn_settle_timeout_s: TurnSettleTimeout = TURN_SETTLE_GRACE_S
