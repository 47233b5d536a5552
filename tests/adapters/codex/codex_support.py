"""The real ``codex app-server`` on a fake Responses endpoint, for tests.

``scripts/test`` installs ``@openai/codex`` (pinned) into ``.tools/codex`` and exports
``BAND_REQUIRE_CODEX=1``; without it, and without the binary, the Codex tests skip.
Codex is isolated: ``CODEX_HOME``/``HOME`` in a temporary folder, proxies pointing at a dead
loopback port (its start-up calls to github.com and chatgpt.com fail at once), and a model
provider whose base URL is the fake endpoint.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from band.adapters import CodexAdapterConfig
from band.testing import ModelRequest

ROOT = Path(__file__).resolve().parents[3]
CODEX_VERSION = "0.169.0"
INSTALLED = ROOT / ".tools" / "codex" / "node_modules" / ".bin" / "codex"
DEAD_PROXY = "http://127.0.0.1:9"


def codex_binary() -> Path:
    """The installed CLI; skips (or fails under ``BAND_REQUIRE_CODEX=1``) when absent."""
    path = Path(os.environ.get("BAND_CODEX_BIN") or INSTALLED)
    if path.exists():
        return path
    message = f"codex CLI not installed at {path} (scripts/test installs @openai/codex)"
    if os.environ.get("BAND_REQUIRE_CODEX") == "1":
        pytest.fail(message)
    pytest.skip(message)


def codex_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {
        "CODEX_HOME": str(home),
        "HOME": str(home),
        "HTTP_PROXY": DEAD_PROXY,
        "HTTPS_PROXY": DEAD_PROXY,
        "ALL_PROXY": DEAD_PROXY,
        "http_proxy": DEAD_PROXY,
        "https_proxy": DEAD_PROXY,
        "all_proxy": DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
        "no_proxy": "127.0.0.1,localhost",
        "RUST_LOG": "error",
    }


def codex_command(binary: Path, base_url: str, extra: Sequence[str] = ()) -> list[str]:
    """``codex app-server`` with a provider ``band-fake`` at ``base_url`` (ends in /v1),
    plus ``extra`` ``-c`` settings."""
    settings = [
        'model_provider="band-fake"',
        'model_providers.band-fake.name="Band fake model"',
        f'model_providers.band-fake.base_url="{base_url}"',
        'model_providers.band-fake.wire_api="responses"',
        "model_providers.band-fake.request_max_retries=0",
        "model_providers.band-fake.stream_max_retries=0",
        *extra,
    ]
    argv = [str(binary), "app-server", "--listen", "stdio://"]
    for setting in settings:
        argv += ["-c", setting]
    return argv


def codex_config(
    binary: Path, base_url: str, home: Path, settings: Sequence[str] = (), **fields: Any
) -> CodexAdapterConfig:
    fields.setdefault("model", "fake-model")
    return CodexAdapterConfig(
        codex_command=codex_command(binary, base_url, settings),
        codex_env=codex_env(home),
        **fields,
    )


def responses_call_ids(request: ModelRequest) -> set[str]:
    """The function-call ids a Responses request replays."""
    return {
        str(item.get("call_id"))
        for item in request.body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call"
    }


def last_call_name(request: ModelRequest) -> str | None:
    """The name of the latest function call in the request's input, if any."""
    calls = [
        item
        for item in request.body.get("input") or []
        if isinstance(item, dict) and item.get("type") == "function_call"
    ]
    return str(calls[-1].get("name")) if calls else None
