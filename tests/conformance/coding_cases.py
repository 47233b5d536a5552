"""Conformance cases of the coding-agent adapters: the real ``codex app-server``, an ACP
agent process and the real Copilot CLI under the Copilot SDK (where it is installed), each
answering from the case's :class:`FakeModel` over loopback HTTP.

One loopback server serves every case's fake under its own path prefix
(``/f/<n>/v1/...``), so a factory can hand a base URL to a child process.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import shutil
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

from band.core import SimpleAdapter
from band.testing import FakeModel, FakeModelApp, serve_asgi

from .adapter_cases import AdapterCase, openai_call_ids

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from adapters.codex.codex_support import codex_binary, codex_config, responses_call_ids

Scope = MutableMapping[str, Any]


class _FakeRouter:
    """ASGI: ``/f/<n>/...`` reaches the n-th registered fake (paths are kept whole)."""

    def __init__(self) -> None:
        self._apps: dict[str, FakeModelApp] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server: contextlib.ExitStack | None = None
        self.origin = ""

    def base_url(self, fake: FakeModel) -> str:
        with self._lock:
            if self._server is None:
                self._server = contextlib.ExitStack()
                self.origin = self._server.enter_context(serve_asgi(self, "fake-router"))
                atexit.register(self._server.close)
            key = str(next(self._ids))
            self._apps[key] = FakeModelApp(fake)
        return f"{self.origin}/f/{key}/v1"

    async def __call__(
        self, scope: Scope, receive: Callable[[], Awaitable[Any]], send: Any
    ) -> None:
        parts = str(scope.get("path", "")).split("/")
        app = self._apps.get(parts[2]) if len(parts) > 2 and parts[1] == "f" else None
        if app is None:
            await send({"type": "http.response.start", "status": 404, "headers": []})
            await send({"type": "http.response.body", "body": b"no such fake"})
            return
        await app(scope, receive, send)


ROUTER = _FakeRouter()
ACP_AGENT = Path(__file__).resolve().parents[1] / "adapters" / "acp" / "scripted_agent.py"
SCRATCH = Path(tempfile.mkdtemp(prefix="band-coding-cases-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def codex_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    from band.adapters import CodexAdapter

    config = codex_config(codex_binary(), ROUTER.base_url(fake), SCRATCH / "codex-home")
    return CodexAdapter(config, workspace_for_room=lambda room: SCRATCH / "ws" / room, **features)


def acp_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    """The project's scripted ACP agent (on the ACP SDK), answering from ``fake``."""
    from band.adapters import ACPClientAdapter, ACPClientAdapterConfig

    config = ACPClientAdapterConfig(
        command=[sys.executable, str(ACP_AGENT)], env={"BAND_FAKE_MODEL_URL": ROUTER.base_url(fake)}
    )
    return ACPClientAdapter(
        config, workspace_for_room=lambda room: SCRATCH / "acp" / room, **features
    )


COPILOT = Path(__file__).resolve().parents[2] / ".tools" / "copilot" / "node_modules" / ".bin"


def copilot_sdk_adapter(fake: FakeModel, **features: Any) -> SimpleAdapter[Any]:
    """The Copilot SDK on the real Copilot CLI, offline, its provider the case's fake."""
    from copilot import CopilotClient, RuntimeConnection

    from band.adapters import CopilotSDKAdapter, CopilotSDKAdapterConfig

    url = ROUTER.base_url(fake)
    home = SCRATCH / "copilot"  # one home: a restarted agent finds its sessions there
    env = {
        "HOME": str(home),
        "COPILOT_HOME": str(home / ".copilot"),
        "COPILOT_AUTO_UPDATE": "false",
        "PATH": "/usr/bin:/bin",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "NO_PROXY": "127.0.0.1,localhost",
    }

    def client() -> Any:
        connection = RuntimeConnection.for_stdio(path=str(COPILOT / "copilot"))
        return CopilotClient(connection=connection, env=env, use_logged_in_user=False)

    provider = {"type": "openai", "base_url": url, "api_key": "sk-fake"}
    config = CopilotSDKAdapterConfig(model="fake-model")
    return CopilotSDKAdapter(config, client_factory=client, provider=provider, **features)


def coding_cases() -> list[AdapterCase]:
    cases = [
        # A model error reaches the room as Codex reported it (build_agent_failure, as
        # band-sdk's): the CLI's own words for a failing model, provider "codex".
        AdapterCase(
            "codex",
            codex_adapter,
            responses_call_ids,
            failure_provider="codex",
            failure_text="experiencing high demand",
        ),
        AdapterCase("acp", acp_adapter, openai_call_ids),
    ]
    try:
        import copilot  # noqa: F401
    except ImportError:
        return cases
    if (COPILOT / "copilot").exists():
        retries = "the Copilot CLI retries a 5xx itself, with backoff (tests/adapters/copilot_sdk)"
        skips = {"model_error": retries}
        cases.append(AdapterCase("copilot-sdk", copilot_sdk_adapter, openai_call_ids, skips))
    return cases
