"""``band.adapters``: lazy exports, and the hint when the Parlant extra is missing."""

from __future__ import annotations

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
        "ACPClientAdapter",
        "ACPClientAdapterConfig",
        "AnthropicAdapter",
        "AnthropicAdapterConfig",
        "CodexAdapter",
        "CodexAdapterConfig",
        "LangGraphAdapter",
        "LangGraphAdapterConfig",
        "OpenAIChatAdapter",
        "ParlantAdapter",
        "ParlantAdapterConfig",
        "PydanticAIAdapter",
        "PydanticAIAdapterConfig",
    }


@pytest.mark.skipif(HAS_PARLANT, reason="parlant is installed in this environment")
def test_missing_extra_names_the_install_command() -> None:
    with pytest.raises(ImportError) as info:
        adapters.ParlantAdapter()
    assert str(info.value) == "ParlantAdapter needs Parlant: pip install 'openband[parlant]'"
    assert "\n" not in str(info.value)
