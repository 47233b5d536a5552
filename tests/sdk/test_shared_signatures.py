"""Options declared once: ``configure_logging`` takes ``build_logging_config``'s, and the
chat-completion adapters take ``ToolLoopAdapter``'s (``LoopOptions``)."""

from __future__ import annotations

import inspect

from band import configure_logging
from band._logging import build_logging_config
from band.adapters import AnthropicAdapter, OpenAIChatAdapter
from band.adapters._chat import LoopOptions
from band.converters.anthropic import AnthropicHistoryConverter
from band.converters.openai_chat import OpenAIChatHistoryConverter


def test_configure_logging_shows_and_takes_build_logging_configs_options() -> None:
    assert inspect.signature(configure_logging) == inspect.signature(build_logging_config)
    config = configure_logging("DEBUG", style="json", json_fields=["message"])
    assert config == build_logging_config("DEBUG", style="json", json_fields=["message"])


def test_both_chat_adapters_take_every_loop_option_and_default_to_their_converter() -> None:
    options: LoopOptions = {
        "system_prompt": "Be brief.",
        "custom_section": "x",
        "include_base_instructions": False,
        "max_tool_rounds": 3,
        "stream": True,
        "additional_tools": (),
    }
    openai = OpenAIChatAdapter(client=object(), **options)  # type: ignore[arg-type]
    anthropic = AnthropicAdapter(client=object(), **options)  # type: ignore[arg-type]
    for adapter in (openai, anthropic):
        assert (adapter.system_prompt, adapter.max_tool_rounds, adapter.stream) == (
            "Be brief.",
            3,
            True,
        )
    assert isinstance(openai.history_converter, OpenAIChatHistoryConverter)
    assert isinstance(anthropic.history_converter, AnthropicHistoryConverter)
    mine = OpenAIChatHistoryConverter()
    assert OpenAIChatAdapter(client=object(), history_converter=mine).history_converter is mine  # type: ignore[arg-type]
