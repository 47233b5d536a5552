"""What every chat-completion-style adapter takes besides its model and client, and the
settings the configured ones (Anthropic, Gemini) share.

``OpenAIChatAdapter`` and ``AnthropicAdapter`` (and any ``ToolLoopAdapter`` of a provider)
accept ``**options: Unpack[LoopOptions]`` and hand them on with ``loop_options``, which
fills in the provider's own history converter when none is given. A provider's config
derives from ``ModelLoopConfig`` (model, API key, prompt), which ``config_loop_options``
turns into the loop's keywords.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypedDict

from pydantic import Field

from band.core.adapterconfig import BaseAdapterConfig
from band.core.protocols import HistoryConverter
from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef

from ._loop import Messages

__all__ = [
    "ConfigLoopOptions",
    "LoopOptions",
    "ModelLoopConfig",
    "config_loop_options",
    "loop_options",
]


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


class ModelLoopConfig(BaseAdapterConfig):
    """The settings a model-loop adapter's config starts with (a provider's config sets
    ``model``'s default and adds its own).

    ``provider_key`` is the API key (None: the provider's client reads its environment).
    ``system_prompt``, when set, is sent as it is; otherwise the prompt is rendered from
    ``custom_section`` (and the base instructions unless ``include_base_instructions`` is
    False).
    """

    model: str
    provider_key: str | None = Field(default=None, repr=False)
    system_prompt: str | None = None
    custom_section: str = ""
    include_base_instructions: bool = True


class ConfigLoopOptions(TypedDict):
    """The keywords of ``ModelLoopAdapter.__init__`` a ``ModelLoopConfig`` gives."""

    model: str
    system_prompt: str | None
    custom_section: str
    include_base_instructions: bool


def config_loop_options(config: ModelLoopConfig) -> ConfigLoopOptions:
    """The model and prompt keywords for ``ModelLoopAdapter.__init__`` from ``config``."""
    return {
        "model": config.model,
        "system_prompt": config.system_prompt,
        "custom_section": config.custom_section,
        "include_base_instructions": config.include_base_instructions,
    }
