"""``AnthropicAdapter``: Band rooms on the Anthropic Messages API, with its own tool loop
(``tool_use`` / ``tool_result`` blocks). The loop itself lives in :mod:`band.adapters._loop`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Unpack

from pydantic import PositiveInt

from band._extras import needs_extra
from band.converters.anthropic import AnthropicHistoryConverter
from band.core.types import FeatureKwargs
from band.runtime.custom_tools import CustomToolDef

from ._chat import ModelLoopConfig, config_loop_options
from ._loop import Messages, ModelCall, ModelTurn, ToolLoopAdapter, ToolOutcome
from ._tool_events import anthropic_usage, image_blocks

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicAdapter", "AnthropicAdapterConfig"]


def _result_content(output: str) -> str | list[dict[str, Any]]:
    """An image band_read_room_file returned becomes image blocks; anything else stays text."""
    images = image_blocks(output)
    if images is None:
        return output
    return [
        {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
        for mime, data in images
    ]


DEFAULT_MODEL = "claude-sonnet-5-5"


class AnthropicAdapterConfig(ModelLoopConfig):
    """What ``AnthropicAdapter`` runs with: ``ModelLoopConfig``'s model, key and prompt
    (``provider_key`` None: the client reads ``ANTHROPIC_API_KEY``), and ``max_tokens``,
    which bounds each model call's answer.
    """

    model: str = DEFAULT_MODEL
    max_tokens: PositiveInt = 4096


def _new_client(api_key: str | None) -> AsyncAnthropic:
    with needs_extra("AnthropicAdapter needs anthropic", "anthropic"):
        from anthropic import AsyncAnthropic
    return AsyncAnthropic(api_key=api_key)


def _turn(message: Any) -> ModelTurn:
    """Read a Messages API answer; every block is kept for replay (thinking signatures too)."""
    text: list[str] = []
    thinking: list[str] = []
    calls: list[ModelCall] = []
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        kind = getattr(block, "type", "")
        if kind == "text":
            if not block.text:
                continue  # the API refuses empty text blocks on replay
            text.append(block.text)
        elif kind == "thinking":
            thinking.append(block.thinking)
        elif kind == "tool_use":
            args = block.input if isinstance(block.input, dict) else {}
            calls.append(ModelCall(block.id, block.name, args))
        blocks.append(block.model_dump(mode="json", exclude_none=True))
    assistant = {"role": "assistant", "content": blocks} if blocks else None
    return ModelTurn(
        "".join(text) or None,
        tuple(calls),
        anthropic_usage(message.usage),
        assistant,
        "\n\n".join(thinking) or None,
    )


class AnthropicAdapter(ToolLoopAdapter):
    """Runs one Messages API tool loop per Band message, one conversation per room.

    ``config`` holds the model, key and prompt (``AnthropicAdapterConfig``). ``client``
    defaults to ``AsyncAnthropic(api_key=config.provider_key)`` (``ANTHROPIC_BASE_URL`` is
    honoured). ``stream=True`` consumes the streamed answer; at most ``max_tool_rounds``
    model calls a turn. Thinking blocks and text sent alongside tool calls become ``thought``
    events when ``Emit.THOUGHTS`` is on.
    """

    SCHEMA_FORMAT = "anthropic"

    def __init__(
        self,
        config: AnthropicAdapterConfig | None = None,
        *,
        history_converter: AnthropicHistoryConverter | None = None,
        additional_tools: Sequence[CustomToolDef] | None = None,
        client: AsyncAnthropic | None = None,
        max_tool_rounds: int = 10,
        stream: bool = False,
        **features: Unpack[FeatureKwargs],
    ) -> None:
        self.config = config = config or AnthropicAdapterConfig()
        super().__init__(
            **config_loop_options(config),
            max_tool_rounds=max_tool_rounds,
            stream=stream,
            additional_tools=additional_tools or (),
            history_converter=history_converter or AnthropicHistoryConverter(),
            **features,
        )
        self.max_tokens = config.max_tokens
        self.client = client if client is not None else _new_client(config.provider_key)

    def tool_results(self, outcomes: Sequence[ToolOutcome]) -> Messages:
        blocks: list[dict[str, Any]] = []
        for outcome in outcomes:
            block: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": outcome.call.id,
                "content": _result_content(outcome.output),
            }
            if outcome.is_error:
                block["is_error"] = True
            blocks.append(block)
        return [{"role": "user", "content": blocks}]

    async def complete(self, messages: Messages, schemas: list[dict[str, Any]]) -> ModelTurn:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": messages,
        }
        if self.system_prompt:
            kwargs["system"] = self.system_prompt
        if schemas:
            kwargs["tools"] = schemas
        if self.stream:
            async with self.client.messages.stream(**kwargs) as stream:
                return _turn(await stream.get_final_message())
        return _turn(await self.client.messages.create(**kwargs))
