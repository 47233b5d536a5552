"""The real ``claude`` CLI (npm ``@anthropic-ai/claude-code``, pinned) on a fake Anthropic
Messages endpoint, for tests.

``scripts/test-adapter claude-sdk`` runs these in ``.venvs/claude-sdk`` (the extra brings
``claude-agent-sdk``) and ``scripts/test`` installs the CLI into ``.tools/claude``; without
either the Claude tests skip (or fail under ``BAND_REQUIRE_CLAUDE_SDK=1`` /
``BAND_REQUIRE_CLAUDE_CLI=1``). The CLI is
isolated: ``HOME`` in a temporary folder, proxies pointing at a dead loopback port, and
``ANTHROPIC_BASE_URL`` at the fake.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from band.testing import ModelRequest

ROOT = Path(__file__).resolve().parents[3]
CLAUDE_VERSION = "2.1.332"
INSTALLED = ROOT / ".tools" / "claude" / "node_modules" / ".bin" / "claude"
DEAD_PROXY = "http://127.0.0.1:9"
SDK_FLAG, CLI_FLAG = "BAND_REQUIRE_CLAUDE_SDK", "BAND_REQUIRE_CLAUDE_CLI"


def _missing(message: str, flag: str) -> None:
    if os.environ.get(flag) == "1":
        pytest.fail(message)
    pytest.skip(message)


def claude_binary() -> Path:
    """The installed CLI, once the SDK imports; skips (or fails) when either is absent."""
    try:
        import claude_agent_sdk  # noqa: F401
    except ImportError:
        _missing("claude-agent-sdk is not installed (scripts/test-adapter claude-sdk)", SDK_FLAG)
    path = Path(os.environ.get("BAND_CLAUDE_BIN") or INSTALLED)
    if not path.exists():
        _missing(f"claude CLI not installed at {path} (scripts/test installs it)", CLI_FLAG)
    return path


def claude_env(home: Path, base_url: str) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": "sk-ant-fake",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",  # a scripted failure is answered at once
        "HTTP_PROXY": DEAD_PROXY,
        "HTTPS_PROXY": DEAD_PROXY,
        "http_proxy": DEAD_PROXY,
        "https_proxy": DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
    }


def claude_config(binary: Path, base_url: str, home: Path, **fields: Any) -> Any:
    from band.adapters import ClaudeCLIOptions, ClaudeSDKAdapterConfig

    fields.setdefault("model", "claude-fake")
    cli = ClaudeCLIOptions(cli_path=str(binary), env=claude_env(home, base_url))
    return ClaudeSDKAdapterConfig(cli=cli, **fields)


def last_tool_use(request: ModelRequest) -> str | None:
    """The name of the latest ``tool_use`` block the request replays, if any."""
    names = [
        str(block.get("name"))
        for message in request.body.get("messages") or []
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_use"
    ]
    return names[-1] if names else None
