"""``examples/coding_agents.py`` builds each coding agent's adapter as its docstring says."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from band.adapters import ClaudeSDKAdapter, CopilotACPAdapter, CopilotSDKAdapter, OpencodeAdapter

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "coding_agents.py"


def test_the_example_builds_each_adapter() -> None:
    spec = importlib.util.spec_from_file_location("coding_agents", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    claude = module.build_adapter("claude")
    assert isinstance(claude, ClaudeSDKAdapter) and claude.relay.mode == "manual"
    assert isinstance(module.build_adapter("opencode"), OpencodeAdapter)
    copilot = module.build_adapter("copilot")
    assert isinstance(copilot, CopilotACPAdapter)
    assert copilot.config.command == ("copilot", "--acp")
    copilot_sdk = module.build_adapter("copilot-sdk")
    assert isinstance(copilot_sdk, CopilotSDKAdapter) and copilot_sdk.ask_user == "room"
    with pytest.raises(SystemExit, match="usage"):
        module.build_adapter("nope")
