"""Options declared once: ``configure_logging`` takes ``build_logging_config``'s, the OpenAI
chat adapter takes ``ToolLoopAdapter``'s (``LoopOptions``), and the Anthropic adapter reads the
same settings from its config, as band-sdk's does."""

from __future__ import annotations

import inspect

from band import configure_logging
from band.adapters import AnthropicAdapter, AnthropicAdapterConfig, OpenAIChatAdapter
from band.adapters._chat import LoopOptions
from band.converters.anthropic import AnthropicHistoryConverter
from band.converters.openai_chat import OpenAIChatHistoryConverter
from band.logging_config import build_logging_config


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


def test_log_settings_configure_and_the_env_entry_take_build_configs_options() -> None:
    from band.config.logs import LogSettings, configure_logging_from_env

    build = inspect.signature(LogSettings().build_config)
    assert inspect.signature(LogSettings().configure) == build
    assert inspect.signature(configure_logging_from_env) == build
    settings = LogSettings(log_level="DEBUG")
    assert settings.build_config(json_fields=["message"]) == build_logging_config(
        "DEBUG", json_fields=["message"], root_level="WARNING"
    )


def test_the_streaming_clients_payloads_are_the_wire_packages_push_models() -> None:
    """One source of push shapes: ``band.client.streaming`` only tightens band-sdk's required
    fields on ``band_protocol.pushes``' models."""
    from band.client import streaming
    from band_protocol import pushes, rooms, socket

    push_models = tuple(getattr(pushes, name) for name in pushes.__all__)
    for name in pushes.__all__:
        ours = getattr(streaming, "Mention" if name == "MessageMention" else name)
        assert issubclass(ours, push_models), name
        assert set(ours.model_fields) == set(getattr(pushes, name).model_fields), name
    payload = {"id": "p1", "name": "Ada", "type": "User"}
    assert streaming.ParticipantAddedPayload.from_wire("participant_added", payload).name == "Ada"
    # The control channel's payloads extend the socket models the platform sends.
    assert issubclass(streaming.AgentControlPayload, socket.AgentControl)
    assert issubclass(streaming.SupersedePayload, socket.Supersede)
    # The lenient room pushes are the platform's room event with optional timestamps.
    assert issubclass(pushes.RoomAddedPayload, rooms.RoomEvent)
    assert list(pushes.RoomAddedPayload.model_fields) == list(rooms.RoomEvent.model_fields)
