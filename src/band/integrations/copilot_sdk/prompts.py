"""The turn-completion guidance a Copilot session's system prompt carries (Band's own, from
:mod:`band.runtime.prompts`, shared with the other coding agents)."""

from __future__ import annotations

from band.runtime.prompts import TURN_COMPLETION_GUIDANCE

__all__ = ["TURN_COMPLETION_GUIDANCE"]
