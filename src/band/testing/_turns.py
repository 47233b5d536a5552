"""Scripted model turns: call a tool, answer in text, or fail; framework-free.

A fake model plays them in order (``FakeModel.script``); framework-specific scripted models
(a Strands model, say) read the same three kinds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["ErrorTurn", "ScriptedTurn", "TextTurn", "ToolTurn"]


@dataclass(frozen=True)
class ToolTurn:
    """The model calls ``name`` with ``args``."""

    name: str
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TextTurn:
    """The model answers ``text`` and ends its run."""

    text: str


@dataclass(frozen=True)
class ErrorTurn:
    """The provider call fails with ``error`` instead of answering."""

    error: Exception


ScriptedTurn = ToolTurn | TextTurn | ErrorTurn
