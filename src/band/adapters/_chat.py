"""The keywords every chat-completion-style adapter takes besides its model and client.

``OpenAIChatAdapter`` and ``AnthropicAdapter`` (and any ``ToolLoopAdapter`` of a provider)
accept ``**options: Unpack[LoopOptions]`` and hand them on with ``loop_options``, which
fills in the provider's own history converter when none is given.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from band.core.protocols import HistoryConverter
from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef

from ._loop import Messages

__all__ = ["LoopOptions", "loop_options"]


class LoopOptions(FeatureKwargs, total=False):
    """``ToolLoopAdapter``'s options; each has the loop's default when left out."""

    system_prompt: str | None
    custom_section: str
    include_base_instructions: bool
    max_tool_rounds: int
    stream: bool
    additional_tools: Sequence[CustomToolDef]
    history_converter: HistoryConverter[Messages] | None


def loop_options(
    options: LoopOptions, converter: Callable[[], HistoryConverter[Messages]]
) -> dict[str, Any]:
    """The keywords for ``ToolLoopAdapter.__init__``: ``options``, with a converter."""
    return {**options, "history_converter": options.get("history_converter") or converter()}
