"""Options declared once: ``configure_logging`` takes ``build_logging_config``'s, the OpenAI
chat adapter takes ``ToolLoopAdapter``'s (``LoopOptions``), and the Anthropic adapter reads the
same settings from its config, as band-sdk's does."""

from __future__ import annotations

import inspect

from band import configure_logging
from band._logging import build_logging_config
from band.adapters import AnthropicAdapter, AnthropicAdapterConfig, OpenAIChatAdapter
from band.adapters._chat import LoopOptions
from band.converters.anthropic import AnthropicHistoryConverter
from band.converters.openai_chat import OpenAIChatHistoryConverter


def test_configure_logging_shows_and_takes_build_logging_configs_options() -> None:
    assert inspect.signature(configure_logging) == inspect.signature(build_logging_config)
    config = configure_logging("DEBUG", style="json", json_fields=["message"])
    assert config == build_logging_config("DEBUG", style="json", json_fields=["message"])


def test_the_chat_adapters_take_the_loop_options_and_default_to_their_converter() -> None:
    options: LoopOptions = {
        "system_prompt": "Be brief.",
        "custom_section": "x",
        "include_base_instructions": False,
        "max_tool_rounds": 3,
        "stream": True,
        "additional_tools": (),
    }
    openai = OpenAIChatAdapter(client=object(), **options)  # type: ignore[arg-type]
    config = AnthropicAdapterConfig(
        system_prompt="Be brief.", custom_section="x", include_base_instructions=False
    )
    anthropic = AnthropicAdapter(config, client=object(), max_tool_rounds=3, stream=True)  # type: ignore[arg-type]
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
