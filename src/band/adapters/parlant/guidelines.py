"""Guidelines declared before start and created on the Parlant agent at startup."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ADD_GUIDELINE_AFTER_START", "GuidelineLedger", "GuidelineSpec"]

ADD_GUIDELINE_AFTER_START = (
    "add_guideline must be called before the agent starts; use the configure= callback "
    "or adapter.parlant_agent.create_guideline() for a running agent"
)


@dataclass(frozen=True)
class GuidelineSpec:
    """One ``add_guideline`` call. ``tools=None`` means the adapter's default tools."""

    condition: str | None
    action: str | None
    tools: Sequence[Any] | None
    kwargs: dict[str, Any] = field(default_factory=dict)


class GuidelineLedger:
    """Declared specs, and how many of them the current Parlant agent already has."""

    def __init__(self) -> None:
        self.specs: list[GuidelineSpec] = []
        self.applied = 0

    def add(self, spec: GuidelineSpec) -> None:
        self.specs.append(spec)

    async def apply(self, parlant_agent: Any, default_tools: Sequence[Any]) -> None:
        """Create every spec the agent does not have yet, in declaration order."""
        for spec in self.specs[self.applied :]:
            kwargs: dict[str, Any] = dict(spec.kwargs)
            if spec.condition is not None:
                kwargs["condition"] = spec.condition
            if spec.action is not None:
                kwargs["action"] = spec.action
            kwargs["tools"] = list(default_tools if spec.tools is None else spec.tools)
            await parlant_agent.create_guideline(**kwargs)
            self.applied += 1

    def any_default(self) -> bool:
        """Whether some declared guideline takes the adapter's default tools."""
        return any(spec.tools is None for spec in self.specs)

    def reset(self) -> None:
        """The agent is gone: a fresh one must get every guideline again."""
        self.applied = 0
