"""``OpenAIChatAdapter``: Band rooms on the OpenAI Chat Completions API (or any compatible
endpoint), with its own tool loop. The loop itself lives in :mod:`band.adapters._loop`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Unpack

from band._extras import needs_extra
from band.converters.openai_chat import OpenAIChatHistoryConverter
from band.core.types import TurnUsage

from ._chat import LoopOptions, loop_options
from ._loop import Messages, ModelCall, ModelTurn, ToolLoopAdapter, ToolOutcome

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OpenAIChatAdapter"]


def _new_client() -> AsyncOpenAI:
    with needs_extra("OpenAIChatAdapter needs openai", "openai"):
        from openai import AsyncOpenAI
    return AsyncOpenAI()


def _args(raw: str | None) -> dict[str, Any]:
    """Tool arguments as a dict; malformed JSON becomes ``{}`` (validation tells the model)."""
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _usage(usage: Any) -> TurnUsage:
    if usage is None:
        return TurnUsage()
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or 0
    return TurnUsage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cache_read_tokens=cached,
    )


def _turn(
    text: str | None, calls: list[dict[str, Any]], usage: TurnUsage, reasoning: str | None
) -> ModelTurn:
    assistant: dict[str, Any] | None = None
    if calls:
        assistant = {"role": "assistant", "content": text, "tool_calls": calls}
    elif text:
        assistant = {"role": "assistant", "content": text}
    parsed = tuple(
        ModelCall(c["id"], c["function"]["name"], _args(c["function"]["arguments"])) for c in calls
    )
    return ModelTurn(text, parsed, usage, assistant, reasoning)


class OpenAIChatAdapter(ToolLoopAdapter):
    """Runs one Chat Completions tool loop per Band message, one conversation per room.

    ``client`` defaults to ``AsyncOpenAI()`` (``OPENAI_API_KEY`` / ``OPENAI_BASE_URL``).
    ``stream=True`` consumes the streamed answer. Reasoning text some compatible servers
    return (``reasoning_content``) and text sent alongside tool calls become ``thought``
    events when ``Emit.THOUGHTS`` is on.
    """

    SCHEMA_FORMAT = "openai"

    def __init__(
        self,
        model: str = "gpt-5.4-mini",
        *,
        client: AsyncOpenAI | None = None,
        **options: Unpack[LoopOptions],
    ) -> None:
        super().__init__(model=model, **loop_options(options, OpenAIChatHistoryConverter))
        self.client = client if client is not None else _new_client()

    def start_conversation(self, history: Messages) -> Messages:
        return [{"role": "system", "content": self.system_prompt}, *history]

    def tool_results(self, outcomes: Sequence[ToolOutcome]) -> Messages:
        return [{"role": "tool", "tool_call_id": o.call.id, "content": o.output} for o in outcomes]

    async def complete(self, messages: Messages, schemas: list[dict[str, Any]]) -> ModelTurn:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        if schemas:
            kwargs["tools"] = schemas
        if self.stream:
            return await self._complete_streamed(kwargs)
        response = await self.client.chat.completions.create(**kwargs)
        message = response.choices[0].message
        calls = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.function.name, "arguments": call.function.arguments},
            }
            for call in message.tool_calls or []
            if getattr(call, "function", None) is not None
        ]
        reasoning = getattr(message, "reasoning_content", None)
        return _turn(message.content, calls, _usage(response.usage), reasoning)

    async def _complete_streamed(self, kwargs: dict[str, Any]) -> ModelTurn:
        stream = await self.client.chat.completions.create(
            **kwargs, stream=True, stream_options={"include_usage": True}
        )
        text: list[str] = []
        reasoning: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        usage = TurnUsage()
        async for chunk in stream:
            if chunk.usage is not None:
                usage = _usage(chunk.usage)
            for choice in chunk.choices:
                delta = choice.delta
                text.append(delta.content or "")
                reasoning.append(getattr(delta, "reasoning_content", None) or "")
                for part in delta.tool_calls or []:
                    call = calls.setdefault(
                        part.index,
                        {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
                    )
                    call["id"] = part.id or call["id"]
                    if part.function is not None:
                        call["function"]["name"] += part.function.name or ""
                        call["function"]["arguments"] += part.function.arguments or ""
        ordered = [calls[i] for i in sorted(calls)]
        return _turn("".join(text) or None, ordered, usage, "".join(reasoning) or None)
