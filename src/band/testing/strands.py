"""A scripted Strands model, to run ``StrandsAdapter`` and Strands' own agent loop offline.

Strands ships no test model; ``ScriptedStrandsModel`` implements its ``Model`` interface and
answers each model call with the next scripted turn (``band.testing``'s ``ToolTurn``,
``TextTurn`` and ``ErrorTurn``), as the Converse stream events Strands parses. Needs the
``strands`` extra.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

try:
    from strands.models import Model
except ImportError:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "band.testing.strands needs Strands Agents: pip install 'openband[strands]'"
    ) from None

from ._turns import ErrorTurn, ScriptedTurn, TextTurn, ToolTurn

__all__ = ["ErrorTurn", "ScriptedStrandsModel", "TextTurn", "ToolTurn"]

WHEN_DONE = "done"  # what the model says once its script is used up


class ScriptedStrandsModel(Model):  # type: ignore[misc]
    """Each ``stream()`` call plays the next turn: a tool call (stop reason ``tool_use``),
    a text answer (``end_turn``), or a raised error; after the script, text ``"done"``.
    Non-zero token counts add a usage ``metadata`` event to every call."""

    def __init__(
        self, turns: Sequence[ScriptedTurn], *, input_tokens: int = 0, output_tokens: int = 0
    ) -> None:
        self._turns = list(turns)
        self._usage = (input_tokens, output_tokens)
        self._config: dict[str, Any] = {}
        self.calls: list[dict[str, Any]] = []  # what each stream() call was given

    def update_config(self, **model_config: Any) -> None:
        self._config.update(model_config)

    def get_config(self) -> Any:
        return self._config

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError("ScriptedStrandsModel has no structured output")
        yield {}  # pragma: no cover - an async generator, as the interface wants

    async def stream(
        self,
        messages: Any,
        tool_specs: list[Any] | None = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[dict[str, Any], None]:
        self.calls.append({"messages": messages, "tool_specs": tool_specs, "system": system_prompt})
        turn = self._turns.pop(0) if self._turns else TextTurn(WHEN_DONE)
        if isinstance(turn, ErrorTurn):
            raise turn.error
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(turn, ToolTurn):
            call_id = f"call-{len(self.calls)}-{turn.name}"
            start = {"toolUse": {"toolUseId": call_id, "name": turn.name}}
            yield {"contentBlockStart": {"start": start}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(turn.args)}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
        else:
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": turn.text}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
        inputs, outputs = self._usage
        if inputs or outputs:
            usage = {
                "inputTokens": inputs,
                "outputTokens": outputs,
                "totalTokens": inputs + outputs,
            }
            yield {"metadata": {"usage": usage, "metrics": {"latencyMs": 1}}}
