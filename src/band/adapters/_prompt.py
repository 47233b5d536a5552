"""``PromptedAdapter``: adapters whose system prompt is Band's, rendered once the agent is known.

A developer's ``system_prompt`` is used verbatim. Without one, ``on_started`` renders the
prompt from the agent's name and description, the adapter's ``custom_section``, the base
instructions (unless turned off) and the capability sections of its features, so every
adapter that builds its own prompt builds it the same way.
"""

from __future__ import annotations

from typing import Generic, TypeVar, Unpack

from band.core.protocols import HistoryConverter
from band.core.simple_adapter import SimpleAdapter
from band.core.types import FeatureKwargs
from band.runtime.prompts import render_system_prompt

__all__ = ["PromptedAdapter"]

H = TypeVar("H")


class PromptedAdapter(SimpleAdapter[H], Generic[H]):
    """A :class:`SimpleAdapter` holding ``system_prompt`` (rendered by ``on_started``)."""

    def __init__(
        self,
        *,
        system_prompt: str | None = None,
        custom_section: str = "",
        include_base_instructions: bool = True,
        prompt_template: str = "default",
        history_converter: HistoryConverter[H] | None = None,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        super().__init__(history_converter=history_converter, **features)
        self.custom_section = custom_section
        self.prompt_template = prompt_template
        self.include_base_instructions = include_base_instructions
        self.system_prompt = system_prompt or ""
        self._fixed_prompt = system_prompt is not None

    async def on_started(self, agent_name: str, agent_description: str) -> None:
        await super().on_started(agent_name, agent_description)
        if not self._fixed_prompt:
            self.system_prompt = render_system_prompt(
                agent_name=agent_name,
                agent_description=agent_description,
                custom_section=self.custom_section,
                template=self.prompt_template,
                include_base_instructions=self.include_base_instructions,
                features=self.features,
            )
