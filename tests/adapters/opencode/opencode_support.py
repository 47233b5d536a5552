"""The real ``opencode serve`` (npm ``opencode-ai``, pinned) on a fake OpenAI-compatible
endpoint, for tests.

``scripts/test`` installs the CLI into ``.tools/opencode`` and exports
``BAND_REQUIRE_OPENCODE=1``; without it, and without the binary, the OpenCode tests skip.
One server runs for the whole session (its start takes long): its provider ``bandfake``
points at a loopback router whose fake model each test swaps in. OpenCode is isolated:
``HOME`` and the XDG folders in a temporary folder, proxies pointing at a dead loopback
port, no update checks, no model catalogue download; ``bash`` and ``edit`` ask permission; the
question tool is on.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from e2e_support import free_port

from band.testing import FakeModel, FakeModelApp, serve_asgi

ROOT = Path(__file__).resolve().parents[3]
INSTALLED = ROOT / ".tools" / "opencode" / "node_modules" / ".bin" / "opencode"
DEAD_PROXY = "http://127.0.0.1:9"
Scope = MutableMapping[str, Any]


def opencode_binary() -> Path:
    path = Path(os.environ.get("BAND_OPENCODE_BIN") or INSTALLED)
    if path.exists():
        return path
    message = f"opencode not installed at {path} (scripts/test installs opencode-ai)"
    if os.environ.get("BAND_REQUIRE_OPENCODE") == "1":
        pytest.fail(message)
    pytest.skip(message)


class SwappableFake:
    """ASGI: the fake model endpoint of whichever ``FakeModel`` the running test set."""

    def __init__(self) -> None:
        self.app = FakeModelApp(FakeModel())

    def use(self, fake: FakeModel) -> None:
        self.app = FakeModelApp(fake)

    async def __call__(
        self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any
    ) -> None:
        await self.app(scope, receive, send)


@dataclass
class OpencodeServe:
    url: str
    folder: Path  # the project folder it works in
    models: SwappableFake


def opencode_env(home: Path, model_url: str) -> dict[str, str]:
    config = {
        "provider": {
            "bandfake": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Band fake model",
                "options": {"baseURL": model_url, "apiKey": "sk-fake"},
                "models": {"fake-model": {"name": "Fake model", "tool_call": True}},
            }
        },
        "model": "bandfake/fake-model",
        "small_model": "bandfake/fake-model",
        "autoupdate": False,
        "share": "disabled",
        "permission": {"bash": "ask", "edit": "ask"},
    }
    xdg = {f"XDG_{k}_HOME": str(home / k.lower()) for k in ("CONFIG", "DATA", "CACHE", "STATE")}
    return {
        **os.environ,
        **xdg,
        "HOME": str(home),
        "OPENCODE_CONFIG_CONTENT": json.dumps(config),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
        # `opencode serve` offers its question tool only when asked to.
        "OPENCODE_ENABLE_QUESTION_TOOL": "1",
        "HTTP_PROXY": DEAD_PROXY,
        "HTTPS_PROXY": DEAD_PROXY,
        "NO_PROXY": "127.0.0.1,localhost",
    }


@contextmanager
def running_opencode(binary: Path, base: Path) -> Iterator[OpencodeServe]:
    """``opencode serve`` on a loopback port, answering from a swappable fake model."""
    models = SwappableFake()
    folder, home = base / "project", base / "home"
    folder.mkdir(parents=True)
    with serve_asgi(models, "opencode-models") as origin:
        port = free_port()
        log = (base / "opencode.log").open("wb")
        argv = [str(binary), "serve", "--hostname", "127.0.0.1", "--port", str(port)]
        proc = subprocess.Popen(
            argv, cwd=folder, env=opencode_env(home, f"{origin}/v1"), stdout=log, stderr=log
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180
            while True:
                assert proc.poll() is None, f"opencode serve exited {proc.returncode}"
                try:
                    if httpx.get(f"{url}/global/health", timeout=5).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "opencode serve did not become healthy"
                time.sleep(0.3)
            yield OpencodeServe(url, folder, models)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            log.close()
