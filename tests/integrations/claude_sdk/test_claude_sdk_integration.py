"""``band.integrations.claude_sdk`` without the Claude Agent SDK: the system prompt Claude
Code gets, the names of Band's tools as it sees them, and the transport module failing with
the extra's install hint (its use with the SDK: ``tests/adapters/claude_sdk``)."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from band.core.types import AdapterFeatures, Capability
from band.integrations.claude_sdk import generate_claude_sdk_agent_prompt
from band.integrations.claude_sdk.prompts import ROOM_CONTEXT
from band.integrations.claude_sdk.tools import BAND_BASE_TOOLS, BAND_CHAT_TOOLS
from band.runtime.prompts import render_system_prompt


def test_claude_codes_preset_gets_bands_instructions_appended() -> None:
    features = AdapterFeatures(capabilities=frozenset({Capability.MEMORY}))
    prompt = generate_claude_sdk_agent_prompt("Coder", "a careful engineer", "Use tabs.", features)

    assert (prompt["type"], prompt["preset"]) == ("preset", "claude_code")
    appended = prompt["append"]
    assert appended == render_system_prompt(
        "Coder", "a careful engineer", "Use tabs.", features=features, extra_sections=[ROOM_CONTEXT]
    )
    assert appended.startswith("You are Coder, a careful engineer.")
    assert "mcp__band__band_send_message" in appended and "Use tabs." in appended
    plain = generate_claude_sdk_agent_prompt("Coder")["append"]
    assert plain.startswith("You are Coder, An AI assistant.") and "Use tabs." not in plain


def test_bands_tools_are_named_as_the_band_mcp_server_serves_them() -> None:
    assert "mcp__band__band_send_message" in BAND_CHAT_TOOLS
    assert set(BAND_CHAT_TOOLS) <= set(BAND_BASE_TOOLS)
    assert all(name.startswith("mcp__band__band_") for name in BAND_BASE_TOOLS)
    assert sorted(BAND_BASE_TOOLS) == BAND_BASE_TOOLS


@pytest.mark.skipif(
    importlib.util.find_spec("claude_agent_sdk") is not None, reason="the SDK is installed here"
)
def test_the_transport_needs_the_extra_and_says_how_to_install_it() -> None:
    with pytest.raises(ImportError, match=r"pip install 'openband\[claude_sdk\]'"):
        importlib.import_module("band.integrations.claude_sdk.transport")
