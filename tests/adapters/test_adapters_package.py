"""``band.adapters``: lazy exports, and the hint when the Parlant extra is missing."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

import band.adapters as adapters
from band.adapters.parlant._require import parlant_available

HAS_PARLANT = parlant_available()


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError) as info:
        adapters.NoSuchAdapter  # noqa: B018
    assert str(info.value) == "module 'band.adapters' has no attribute 'NoSuchAdapter'"


def test_exports_resolve_without_importing_parlant() -> None:
    code = (
        "import sys\n"
        "from band.adapters import ParlantAdapter, ParlantAdapterConfig\n"
        "assert ParlantAdapterConfig().response_timeout == 300.0\n"
        "assert 'parlant' not in sys.modules, sorted(m for m in sys.modules if 'parlant' in m)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert set(adapters.__all__) == {
        "A2AAdapter",
        "A2AAdapterConfig",
        "A2AGatewayAdapter",
        "A2AGatewayAdapterConfig",
        "ACPClientAdapter",
        "ACPClientAdapterConfig",
        "AgnoAdapter",
        "AgnoAdapterConfig",
        "AnthropicAdapter",
        "AnthropicAdapterConfig",
        "ClaudeApprovalOptions",
        "ClaudeCLIOptions",
        "ClaudeSDKAdapter",
        "ClaudeSDKAdapterConfig",
        "CodexAdapter",
        "CodexAdapterConfig",
        "CopilotACPAdapter",
        "CopilotACPAdapterConfig",
        "CopilotSDKAdapter",
        "CopilotSDKAdapterConfig",
        "CursorACPAdapter",
        "CursorACPAdapterConfig",
        "OmpACPAdapter",
        "OmpACPAdapterConfig",
        "OpencodeAdapter",
        "OpencodeAdapterConfig",
        "CrewAIAdapter",
        "CrewAIAdapterConfig",
        "CrewAIFlowAdapter",
        "CrewAIFlowAdapterConfig",
        "GeminiAdapter",
        "GeminiAdapterConfig",
        "GoogleADKAdapter",
        "GoogleADKAdapterConfig",
        "LangGraphAdapter",
        "LangGraphAdapterConfig",
        "LettaAdapter",
        "LettaAdapterConfig",
        "NooaAdapter",
        "NooaAdapterConfig",
        "NooaRoomAgent",
        "OpenAIChatAdapter",
        "ParlantAdapter",
        "ParlantAdapterConfig",
        "PydanticAIAdapter",
        "PydanticAIAdapterConfig",
        "StrandsAdapter",
        "StrandsAdapterConfig",
        "SlackAdapter",
        "SlackAdapterConfig",
    }


@pytest.mark.skipif(HAS_PARLANT, reason="parlant is installed in this environment")
def test_missing_extra_names_the_install_command() -> None:
    with pytest.raises(ImportError) as info:
        adapters.ParlantAdapter()
    assert str(info.value) == "ParlantAdapter needs Parlant: pip install 'openband[parlant]'"
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("name", "module", "hint"),
    [
        ("CrewAIAdapter", "crewai", "CrewAIAdapter needs CrewAI: pip install 'openband[crewai]'"),
        (
            "CrewAIFlowAdapter",
            "crewai",
            "CrewAIFlowAdapter needs CrewAI: pip install 'openband[crewai]'",
        ),
        ("AgnoAdapter", "agno", "AgnoAdapter needs Agno: pip install 'openband[agno]'"),
        (
            "StrandsAdapter",
            "strands",
            "StrandsAdapter needs Strands Agents: pip install 'openband[strands]'",
        ),
        (
            "GeminiAdapter",
            "google.genai",
            "GeminiAdapter needs google-genai: pip install 'openband[gemini]'",
        ),
        (
            "GoogleADKAdapter",
            "google.adk",
            "GoogleADKAdapter needs google-adk: pip install 'openband[google_adk]'",
        ),
    ],
)
def test_a_framework_adapter_without_its_extra_names_the_install_command(
    name: str, module: str, hint: str
) -> None:
    try:
        installed = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a dotted name whose parent package is absent
        installed = False
    if installed:
        pytest.skip(f"{module} is installed in this environment")
    with pytest.raises(ImportError) as info:
        # Raised on import where band-sdk's module needs the framework to import, else on
        # first use (building the adapter), as band-sdk's does (CrewAI, Google ADK).
        required = {"flow_factory": lambda: None} if name == "CrewAIFlowAdapter" else {}
        getattr(adapters, name)(**required)
    assert str(info.value) == hint


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="NOOA can install on this interpreter")
def test_nooa_explains_that_it_needs_python_3_12() -> None:
    """band-sdk's NOOA names import, and say in one line why NOOA cannot run here."""
    with pytest.raises(ModuleNotFoundError) as info:
        adapters.NooaAdapter  # noqa: B018
    assert info.value.name == "nooa"
    assert str(info.value) == (
        "NooaAdapter needs NOOA, which runs on Python 3.12 and 3.13 only (this is Python"
        f" {sys.version_info[0]}.{sys.version_info[1]}); there: pip install 'openband[nooa]'"
    )


def test_coding_adapters_that_take_mcp_import_without_the_acp_extra() -> None:
    """Claude Code and OpenCode serve Band's tools through the coding base's MCP server, which
    needs no agent's SDK: with the ACP SDK absent they still import (the claude-sdk
    environment has no ``acp`` extra)."""
    code = (
        "import sys\n"
        "sys.modules['acp'] = None\n"
        "from band.adapters._coding.band_tools import BandMcpServer\n"
        "from band.adapters.opencode import OpencodeAdapter\n"
        "import band.adapters.claude_sdk.adapter\n"
    )
    try:
        has_claude = importlib.util.find_spec("claude_agent_sdk") is not None
    except ModuleNotFoundError:
        has_claude = False
    if not has_claude:
        code = code.replace("import band.adapters.claude_sdk.adapter\n", "")
    subprocess.run([sys.executable, "-c", code], check=True)
